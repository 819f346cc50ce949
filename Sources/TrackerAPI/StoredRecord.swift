import TrackerModel

/// A record as the team's copy stores it in Redis: tracker's own JSON of what the copy keeps (not Airtable's shape,
/// which needs the fields' names to read; the copy's keys carry its layout instead), read back strictly. A value that
/// is not such a record is junk: the copy holding it is not served.
public protocol StoredRecord: CopiedRecord {
    /// The record as stored.
    var stored: JSONValue { get }
    /// The record a stored value holds; nil when it holds none (junk, another kind, a value cut short).
    init?(stored: JSONValue)
}

extension Collaborator {
    var stored: JSONValue {
        .object([("id", .string(or: id)), ("name", .string(or: name)), ("email", .string(or: email))])
    }

    init?(stored value: JSONValue) {
        guard value.objectMembers != nil, let id = value.optionalText("id"), let name = value.optionalText("name"),
            let email = value.optionalText("email")
        else { return nil }
        self.init(id: id, name: name, email: email)
    }
}

extension JSONValue {
    /// A member that must be there: its text, or `.some(nil)` for null; nil when it is missing or not text.
    fileprivate func optionalText(_ key: String) -> String?? {
        switch self[key] {
        case .string(let text)?: .some(text)
        case .null?: .some(nil)
        default: nil
        }
    }

    fileprivate func texts(_ key: String) -> [String]? {
        guard let items = self[key]?.arrayValue else { return nil }
        let texts = items.compactMap(\.stringValue)
        return texts.count == items.count ? texts : nil
    }

    fileprivate func date(_ key: String) -> CalendarDate?? {
        switch self[key] {
        case .null?: .some(nil)
        case .string(let text)?: CalendarDate(text).map { .some($0) }
        default: nil
        }
    }

    fileprivate func person(_ key: String) -> Collaborator?? {
        switch self[key] {
        case .null?: .some(nil)
        case let value?: Collaborator(stored: value).map { .some($0) }
        case nil: nil
        }
    }

    fileprivate func fields(_ key: String) -> [FieldValue]? {
        guard let members = self[key]?.objectMembers else { return nil }
        return members.map { FieldValue($0.0, $0.1) }
    }

    fileprivate static func fields(_ fields: [FieldValue]) -> JSONValue { .object(fields.map { ($0.name, $0.value) }) }

    fileprivate static func date(_ date: CalendarDate?) -> JSONValue { .string(or: date?.description) }
}

extension Project: StoredRecord {
    public var stored: JSONValue {
        .object([
            ("kind", .string("project")), ("id", .string(id)), ("createdTime", .string(createdTime)),
            ("name", .string(or: name)), ("category", .string(or: category)), ("complete", .bool(isComplete)),
            ("kickoff", .date(kickoff)), ("due", .date(due)), ("lead", lead?.stored ?? .null),
            ("team", .array(team.map(\.stored))), ("clients", .array(clients.map(JSONValue.string))),
            ("notes", .string(or: notes)), ("fields", .fields(otherFields)),
        ])
    }

    public init?(stored value: JSONValue) {
        guard value["kind"]?.stringValue == "project", let id = value["id"]?.stringValue, !id.isEmpty,
            let created = value["createdTime"]?.stringValue, let name = value.optionalText("name"),
            let category = value.optionalText("category"), let complete = value["complete"]?.boolValue,
            let kickoff = value.date("kickoff"), let due = value.date("due"), let lead = value.person("lead"),
            let teamValues = value["team"]?.arrayValue, let clients = value.texts("clients"),
            let notes = value.optionalText("notes"), let fields = value.fields("fields")
        else { return nil }
        let team = teamValues.compactMap(Collaborator.init(stored:))
        guard team.count == teamValues.count else { return nil }
        self.init(
            id: id, createdTime: created, name: name, category: category, isComplete: complete, kickoff: kickoff,
            due: due, lead: lead, team: team, clients: clients, notes: notes, otherFields: fields)
    }
}

extension ProjectTask: StoredRecord {
    public var stored: JSONValue {
        .object([
            ("kind", .string("task")), ("id", .string(id)), ("createdTime", .string(createdTime)),
            ("name", .string(or: name)), ("projects", .array(projects.map(JSONValue.string))),
            ("complete", .bool(isComplete)), ("estimate", estimate.map(JSONValue.number) ?? .null),
            ("assignee", assignee?.stored ?? .null), ("notes", .string(or: notes)), ("fields", .fields(otherFields)),
        ])
    }

    public init?(stored value: JSONValue) {
        guard value["kind"]?.stringValue == "task", let id = value["id"]?.stringValue, !id.isEmpty,
            let created = value["createdTime"]?.stringValue, let name = value.optionalText("name"),
            let projects = value.texts("projects"), let complete = value["complete"]?.boolValue,
            let assignee = value.person("assignee"), let notes = value.optionalText("notes"),
            let fields = value.fields("fields")
        else { return nil }
        let estimate: Double?
        switch value["estimate"] {
        case .null?: estimate = nil
        case .number(let number)?: estimate = number
        default: return nil
        }
        self.init(
            id: id, createdTime: created, name: name, projects: projects, isComplete: complete, estimate: estimate,
            assignee: assignee, notes: notes, otherFields: fields)
    }
}

extension RawRecord: StoredRecord {
    public var stored: JSONValue { .object([("kind", .string("record")), ("id", .string(id)), ("fields", fields)]) }

    public init?(stored value: JSONValue) {
        guard value["kind"]?.stringValue == "record", let id = value["id"]?.stringValue, !id.isEmpty,
            let fields = value["fields"], fields.objectMembers != nil
        else { return nil }
        self.init(id: id, fields: fields)
    }
}
