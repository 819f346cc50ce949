import TrackerModel

/// A record's cells as Airtable keeps them, which is what the journal keeps of a write (a field's value before and
/// after) and what an undo sends back. Read from the records tracker already has (the write's own read, the copy), so
/// a journaled write costs no request; where the model cannot say a value exactly (a completion kept in a select
/// that is not done), nil, and the caller reads the record's cell instead.
package enum JournalCells {
    /// A person: by id and email where both are known (the email is what a person reading a diff or the history
    /// recognises; `writable` sends the id alone), else the one known.
    static func person(_ person: Collaborator?) -> JSONValue {
        guard let person else { return .null }
        if let id = person.id, let email = person.email {
            return .object([("id", .string(id)), ("email", .string(email))])
        }
        if let id = person.id { return .object([("id", .string(id))]) }
        if let email = person.email { return .object([("email", .string(email))]) }
        return .null
    }

    static func date(_ date: CalendarDate?) -> JSONValue { .string(or: date?.description) }

    static func completion(_ complete: Bool, _ completion: CompletionField?) -> JSONValue? {
        switch completion {
        case .checkbox?: .bool(complete)
        case .select?: complete ? completion!.value(complete: true) : nil
        case nil: nil
        }
    }

    /// What `project` holds in the field named `field`.
    static func value(of project: Project, field: String, map: FieldMap) -> JSONValue? {
        guard let word = map.word(forFieldNamed: field), map[word] == field else {
            return project.otherFields.first { $0.name == field }?.value ?? .null
        }
        switch word {
        case .name: return .string(or: project.name)
        case .category: return .string(or: project.category)
        case .complete: return completion(project.isComplete, map.completion)
        case .kickoff: return date(project.kickoff)
        case .due: return date(project.due)
        case .lead: return person(project.lead)
        case .team: return .array(project.team.map { person($0) })
        case .client: return .array(project.clients.map(JSONValue.string))
        case .notes: return .string(or: project.notes)
        }
    }

    /// What `task` holds in the field named `field`.
    static func value(of task: ProjectTask, field: String, map: TaskFieldMap) -> JSONValue? {
        guard let word = map.word(forFieldNamed: field), map[word] == field else {
            return task.otherFields.first { $0.name == field }?.value ?? .null
        }
        switch word {
        case .name: return .string(or: task.name)
        case .project: return .array(task.projects.map(JSONValue.string))
        case .estimate: return task.estimate.map(JSONValue.number) ?? .null
        case .complete: return completion(task.isComplete, map.completion)
        case .assignee: return person(task.assignee)
        case .notes: return .string(or: task.notes)
        }
    }

    /// A project's whole row, as a deletion keeps it: every field it has a value in.
    static func row(of project: Project, map: FieldMap) -> [(String, JSONValue)] {
        let words = map.namedWords.compactMap { word, name in
            value(of: project, field: name, map: map).map { (name, $0) }
        }
        return (words + project.otherFields.map { ($0.name, $0.value) }).filter { !isEmpty($0.1) }
    }

    /// A task's whole row.
    static func row(of task: ProjectTask, map: TaskFieldMap) -> [(String, JSONValue)] {
        let words = map.namedWords.compactMap { word, name in value(of: task, field: name, map: map).map { (name, $0) }
        }
        return (words + task.otherFields.map { ($0.name, $0.value) }).filter { !isEmpty($0.1) }
    }

    /// Whether a cell holds nothing: Airtable leaves such a field out of a record, so null, "", [] and an unticked box
    /// are one value.
    static func isEmpty(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .string(let text): text.isEmpty
        case .array(let items): items.isEmpty
        case .bool(let flag): !flag
        default: false
        }
    }

    /// Whether two cells hold the same value as Airtable means it: empties alike, numbers by value, a person by id
    /// where both say it, else by email (any case), lists item by item.
    package static func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if isEmpty(lhs) || isEmpty(rhs) { return isEmpty(lhs) && isEmpty(rhs) }
        switch (lhs, rhs) {
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { same($0, $1) }
        case (.object, .object):
            if let left = lhs["id"]?.stringValue, let right = rhs["id"]?.stringValue { return left == right }
            if let left = lhs["email"]?.stringValue, let right = rhs["email"]?.stringValue {
                return left.lowercased() == right.lowercased()
            }
            return lhs == rhs
        case (.number(let left), .number(let right)): return abs(left - right) < 1e-9
        default: return lhs == rhs
        }
    }

    /// A cell as a write may send it back: a person by id or email alone (the name, the picture and the rest are
    /// Airtable's to fill), a file by id when it is still there or by its address.
    static func writable(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map(writable))
        case .object(let members):
            let keys = Set(members.map(\.0))
            if keys.contains("email") || keys.contains("permissionLevel") {
                if let id = value["id"]?.stringValue, id.hasPrefix("usr") { return .object([("id", .string(id))]) }
                if let email = value["email"]?.stringValue { return .object([("email", .string(email))]) }
            }
            if keys.contains("url"), keys.contains("filename") {
                return .object(
                    [("url", value["url"] ?? .null), ("filename", value["filename"] ?? .null)])
            }
            return value
        default: return value
        }
    }
}
