#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A field of a fake table as it is set up: name, schema type and options; the fake's behaviour follows the type.
public struct FakeFieldSpec: Sendable {
    public var name: String
    public var type: String
    /// The schema's `options`, as JSON text (`{"precision":2,"symbol":"$"}`); choices go in `choices`.
    public var options: String?
    /// The choices of a single or multiple select, in order.
    public var choices: [String]
    /// A formula field's formula (in the fake's formula language), computed on every read.
    public var formula: String?
    /// A link field's table, by name.
    public var linkedTable: String?

    public init(
        _ name: String, _ type: String, options: String? = nil, choices: [String] = [], formula: String? = nil,
        linkedTable: String? = nil
    ) {
        self.name = name
        self.type = type
        self.options = options
        self.choices = choices
        self.formula = formula
        self.linkedTable = linkedTable
    }
}

/// A saved view: its own filter (a formula) and order, which Airtable applies when a listing names it.
public struct FakeViewSpec: Sendable {
    public var name: String
    public var type: String
    public var filter: String?
    /// Field names, each ascending unless marked descending.
    public var sort: [(field: String, descending: Bool)]

    public init(_ name: String, type: String = "grid", filter: String? = nil, sort: [(String, Bool)] = []) {
        self.name = name
        self.type = type
        self.filter = filter
        self.sort = sort.map { (field: $0.0, descending: $0.1) }
    }
}

/// A field of a fake table, as the schema API describes it.
struct FakeField {
    var id: String
    var name: String
    var type: String
    /// The choices of a single or multiple select, in order; typecast may add some.
    var choices: [String] = []
    /// The table a link field points at.
    var linkedTableID: String? = nil
    /// The other options the schema shows (precision, symbol, max, result…).
    var options: [String: Any] = [:]
    /// For a formula field, what computes it.
    var formula: String? = nil

    /// Types whose values Airtable computes; a write to one is refused.
    static let computedTypes: Set<String> = [
        "formula", "rollup", "multipleLookupValues", "count", "autoNumber", "createdTime", "lastModifiedTime",
        "createdBy", "lastModifiedBy", "button",
    ]

    var isComputed: Bool { Self.computedTypes.contains(type) }

    var json: [String: Any] {
        var object: [String: Any] = ["id": id, "name": name, "type": type]
        var options = self.options
        if type == "singleSelect" || type == "multipleSelects" {
            options["choices"] = choices.map { name -> [String: Any] in
                ["id": "sel" + FakeBase.stableID(name, length: 14), "name": name, "color": "blueLight2"]
            }
        }
        if let linkedTableID {
            options["linkedTableId"] = linkedTableID
            options["isReversed"] = false
        }
        if !options.isEmpty { object["options"] = options }
        return object
    }
}

/// One stored record; `fields` holds only non-empty cells, keyed by field name, as Airtable returns them.
struct StoredRecord {
    var id: String
    var createdTime: String
    var fields: [String: Any]
    /// When each field was last written, for `LAST_MODIFIED_TIME()`; a field never written since creation has none.
    var modifiedTimes: [String: String] = [:]

    /// `LAST_MODIFIED_TIME({a}, …)`: the latest write to any of `names` (any field when empty).
    ///
    /// Not recorded: what Airtable answers for fields never changed since the record was created. The fake answers the
    /// creation time, so such a record is "changed" only as long ago as it was created.
    func lastModified(_ names: [String]) -> String {
        let times = names.isEmpty ? Array(modifiedTimes.values) : names.compactMap { modifiedTimes[$0] }
        return times.max() ?? createdTime
    }

    /// The value a formula sees for a stored field of `type`.
    func formulaValue(_ name: String, type: String?) -> FormulaValue {
        guard let stored = fields[name] else { return type == "checkbox" ? .bool(false) : .blank }
        // Text first: most cells are, and a number's casts (existential ones among them) would fail on each.
        if let text = stored as? String { return .string(text) }
        if let number = AnyJSON.number(stored) { return .number(number) }
        switch stored {
        case let value as Bool: return .bool(value)
        case let value as String: return .string(value)
        case let person as [String: Any]: return .string(person["name"] as? String ?? "")
        case let list as [Any]:
            return .string(list.map { ($0 as? [String: Any])?["name"] as? String ?? "\($0)" }.joined(separator: ", "))
        default: return .blank
        }
    }
}

/// A view as the fake applies it.
struct FakeView {
    var id: String
    var name: String
    var type: String
    var filter: String?
    var sort: [(field: String, descending: Bool)]
}

/// The fake base: the projects table (the template's, or one set up otherwise), Clients and Tasks, the people its
/// collaborator fields know, and page cursors.
struct FakeBase {
    /// The template's fields, which `FakeAirtable.Options.renamedFields` and `removedFields` can change.
    static let templateFields: [FakeFieldSpec] = [
        FakeFieldSpec("Name", "singleLineText"),
        FakeFieldSpec("Category", "singleSelect", choices: categories),
        FakeFieldSpec("Complete", "checkbox", options: #"{"icon":"check","color":"greenBright"}"#),
        FakeFieldSpec("Kickoff date", "date", options: #"{"dateFormat":{"name":"local","format":"l"}}"#),
        FakeFieldSpec("Due date", "date", options: #"{"dateFormat":{"name":"local","format":"l"}}"#),
        FakeFieldSpec("Project lead", "singleCollaborator"),
        FakeFieldSpec("Project team", "multipleCollaborators"),
        FakeFieldSpec("Client", "multipleRecordLinks", linkedTable: "Clients"),
        FakeFieldSpec("Notes", "multilineText"),
        FakeFieldSpec("Project images", "multipleAttachments", options: #"{"isReversed":false}"#),
        FakeFieldSpec("Tasks", "multipleRecordLinks", linkedTable: "Tasks"),
    ]
    /// The template's views (docs/airtable.md "The template").
    static let templateViews: [FakeViewSpec] = [
        FakeViewSpec("All projects"),
        FakeViewSpec("Incomplete projects by leader", filter: "NOT({Complete})", sort: [("Project lead", false)]),
        FakeViewSpec("Completed projects", type: "gallery", filter: "{Complete}"),
        FakeViewSpec("Project calendar", type: "calendar"),
        FakeViewSpec("Due dates only", type: "calendar", filter: "{Due date}"),
    ]
    static let categories = ["Brand identity", "Industrial design", "Healthcare design", "Technology design"]
    static let clientsTableID = "tblFAKEclients001"
    static let tasksTableID = FakeTasks.tableID

    var tables: [FakeTable]
    /// Whether `typecast` may add choices to a select field.
    var allowsSchemaChanges: Bool
    /// Collaborators by lower-cased email: `{id, email, name}`.
    var collaborators: [String: [String: Any]] = [:]
    /// Page cursors: offset → (the snapshot of matching ids, the position of the next page, when it was made).
    var cursors: [String: (ids: [String], position: Int, created: Date)] = [:]

    /// A base holding `projects` (records keyed by the projects table's field names) in its projects table: the
    /// template's fields changed by `renamedFields` and `removedFields`, or `projectFields` when the options give them.
    init(options: FakeAirtable.Options, projects: [[String: Any]]) {
        let isTemplate = options.projectFields == nil
        let rename = { (name: String) in isTemplate ? options.renamedFields[name] ?? name : name }
        allowsSchemaChanges = options.allowsSchemaChanges
        let specs = (options.projectFields ?? Self.templateFields).filter { !options.removedFields.contains($0.name) }
        let linked = ["Clients": Self.clientsTableID, "Tasks": Self.tasksTableID]
        let projectFields = specs.enumerated().map { index, spec in
            var field = FakeField(
                id: "fldFAKEproj\(zeroPadded(index, 6))", name: rename(spec.name), type: spec.type,
                choices: spec.choices, linkedTableID: spec.linkedTable.flatMap { linked[$0] }, formula: spec.formula)
            if let text = spec.options, let options = AnyJSON.parse(Data(text.utf8)) {
                field.options = options as? [String: Any] ?? [:]
            }
            return field
        }
        let views = (options.views ?? Self.templateViews).enumerated().map { index, spec in
            FakeView(
                id: "viwFAKEview" + zeroPadded(index, 6), name: spec.name, type: spec.type,
                filter: spec.filter.map { isTemplate ? Self.renaming($0, options.renamedFields) : $0 },
                sort: spec.sort.map { (rename($0.field), $0.descending) })
        }
        var projectsTable = FakeTable(id: options.tableID, name: options.table, fields: projectFields, views: views)
        // The base's people and clients exist whatever the table holds, as they do in Airtable.
        var clientIDs: [String] = []
        for object in FakeAirtable.recordedProjects + projects {
            for person in Self.people(in: object["fields"] as? [String: Any] ?? [:]) {
                if let email = person["email"] as? String { collaborators[email.lowercased()] = person }
            }
            for client in object["fields"].flatMap({ ($0 as? [String: Any])?["Client"] as? [String] }) ?? []
            where !clientIDs.contains(client) {
                clientIDs.append(client)
            }
        }
        for object in projects {
            guard let id = object["id"] as? String else { continue }
            var fields: [String: Any] = [:]
            for (name, value) in object["fields"] as? [String: Any] ?? [:] where !options.removedFields.contains(name) {
                fields[rename(name)] = value
            }
            // `lastModifiedTimes` is the fake's own seed key (tests set when a field changed); Airtable has none.
            projectsTable.insert(
                StoredRecord(
                    id: id, createdTime: object["createdTime"] as? String ?? "2026-01-01T00:00:00.000Z", fields: fields,
                    modifiedTimes: (object["lastModifiedTimes"] as? [String: String] ?? [:]).reduce(into: [:]) {
                        $0[rename($1.key)] = $1.value
                    }))
        }
        var clients = FakeTable(
            id: Self.clientsTableID, name: "Clients",
            fields: [
                FakeField(id: "fldFAKEclient0001", name: "Name", type: "singleLineText"),
                FakeField(id: "fldFAKEclient0002", name: "About", type: "multilineText"),
                FakeField(
                    id: "fldFAKEclient0003", name: "Logo", type: "multipleAttachments",
                    options: ["isReversed": false]),
                FakeField(
                    id: "fldFAKEclient0004", name: "Projects", type: "multipleRecordLinks",
                    linkedTableID: options.tableID),
            ],
            views: [FakeView(id: "viwFAKEclients01", name: "All clients", type: "grid", filter: nil, sort: [])])
        for (index, id) in clientIDs.enumerated() {
            let name = index < options.clientNames.count ? options.clientNames[index] : "Client \(index + 1)"
            var fields: [String: Any] = ["Name": name]
            // The template's inverse link: the projects of this table that name the client.
            let linked = projectsTable.records.filter {
                ($0.fields[rename("Client")] as? [String])?.contains(id) == true
            }
            if !linked.isEmpty { fields["Projects"] = linked.map(\.id) }
            clients.insert(StoredRecord(id: id, createdTime: "2020-01-01T00:00:00.000Z", fields: fields))
        }
        var tasks = FakeTable(
            id: Self.tasksTableID, name: options.tasksTable,
            fields: FakeTasks.fields(
                projectsTableID: options.tableID, renamed: options.renamedTaskFields,
                removed: options.removedTaskFields),
            views: [FakeView(id: "viwFAKEtasks0001", name: "All tasks", type: "grid", filter: nil, sort: [])])
        let known = collaborators
        let people = known.keys.sorted().compactMap { known[$0] }
        var seeds: [(id: String, fields: [String: Any], created: String)] = []
        if let given = options.tasks {
            seeds = given.enumerated().map { index, task in
                (task.id ?? "recFAKEtask" + zeroPadded(index, 6), task.fields(people: known), task.createdTime)
            }
        } else {
            // The recorded projects list their tasks' ids; each gets the template's content and links back.
            var taskIDs: [String] = []
            var projectOf: [String: String] = [:]
            // The base's tasks exist whatever the projects table holds, as its people and clients do; a task links
            // back only to a project this table has.
            let present = Set(projects.compactMap { $0["id"] as? String })
            for object in FakeAirtable.recordedProjects + projects {
                for task in object["fields"].flatMap({ ($0 as? [String: Any])?["Tasks"] as? [String] }) ?? [] {
                    if !taskIDs.contains(task) { taskIDs.append(task) }
                    if let id = object["id"] as? String, present.contains(id) { projectOf[task] = id }
                }
            }
            seeds = taskIDs.enumerated().map { index, id in
                var fields = FakeTasks.recordedContent(index, people: people)
                if let project = projectOf[id] { fields["Design project"] = [project] }
                return (id, fields, "2020-01-01T00:00:00.000Z")
            }
        }
        let projectLink = options.renamedTaskFields["Design project"] ?? "Design project"
        // The projects' Tasks fields hold exactly the tasks that link to them, as Airtable keeps them.
        let tasksField = rename("Tasks")
        for record in projectsTable.records where record.fields[tasksField] != nil {
            var record = record
            record.fields[tasksField] = nil
            projectsTable.replace(record)
        }
        for seed in seeds {
            let fields = FakeTasks.renaming(
                seed.fields, options.renamedTaskFields, removed: options.removedTaskFields)
            tasks.insert(StoredRecord(id: seed.id, createdTime: seed.created, fields: fields))
            for project in fields[projectLink] as? [String] ?? [] {
                guard var record = projectsTable.record(id: project) else { continue }
                var list = record.fields[tasksField] as? [String] ?? []
                list.append(seed.id)
                record.fields[tasksField] = list
                projectsTable.replace(record)
            }
        }
        tables = [projectsTable, clients, tasks]
    }

    /// A view's formula with the template's field names replaced as the base renamed them.
    private static func renaming(_ formula: String, _ renamed: [String: String]) -> String {
        renamed.reduce(formula) { text, pair in text.replacing("{\(pair.key)}", with: "{\(pair.value)}")
        }
    }

    private static func people(in fields: [String: Any]) -> [[String: Any]] {
        var people = fields["Project team"] as? [[String: Any]] ?? []
        if let lead = fields["Project lead"] as? [String: Any] { people.append(lead) }
        return people
    }

    /// The position of the table with this id or name.
    func tableIndex(_ idOrName: String) -> Int? {
        tables.firstIndex { $0.id == idOrName || $0.name == idOrName }
    }

    /// A record of any table of the base, as Airtable's GET of one record finds it, and its table.
    func anyRecord(id: String) -> (StoredRecord, FakeTable)? {
        for table in tables { if let record = table.record(id: id) { return (record, table) } }
        return nil
    }

    static func makeID(prefix: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return prefix + String((0..<14).map { _ in alphabet.randomElement()! })
    }

    /// A stable made-up id part for `text` (FNV-1a over its bytes).
    static func stableID(_ text: String, length: Int) -> String {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<length).map { index in alphabet[Int((hash >> UInt64(index * 4 % 60)) % 62)] })
    }
}
