import Foundation

/// A field of a fake table, as the schema API describes it; the fake's behaviour follows the type, not the name.
struct FakeField {
    var id: String
    var name: String
    var type: String
    /// The choices of a single select, in order.
    var choices: [String] = []
    /// The table a link field points at.
    var linkedTableID: String? = nil

    var json: [String: Any] {
        var object: [String: Any] = ["id": id, "name": name, "type": type]
        if type == "singleSelect" {
            let list = choices.enumerated().map { index, name -> [String: Any] in
                ["id": "sel" + FakeBase.stableID(name, length: 14), "name": name, "color": "blueLight2"]
            }
            object["options"] = ["choices": list]
        }
        if let linkedTableID { object["options"] = ["linkedTableId": linkedTableID, "isReversed": false] }
        return object
    }
}

/// One stored record; `fields` holds only non-empty cells, keyed by field name, as Airtable returns them.
struct StoredRecord {
    var id: String
    var createdTime: String
    var fields: [String: Any]

    func json(fields only: Set<String>?) -> [String: Any] {
        let shown = only.map { names in fields.filter { names.contains($0.key) } } ?? fields
        return ["id": id, "createdTime": createdTime, "fields": shown]
    }

    /// The value a formula sees for a field of `type`.
    func formulaValue(_ name: String, type: String?) -> FormulaValue {
        switch fields[name] {
        case nil: return type == "checkbox" ? .bool(false) : .blank
        case let value as Bool: return .bool(value)
        case let value as String: return .string(value)
        case let value as NSNumber: return .number(value.doubleValue)
        case let person as [String: Any]: return .string(person["name"] as? String ?? "")
        case let list as [Any]:
            return .string(list.map { ($0 as? [String: Any])?["name"] as? String ?? "\($0)" }.joined(separator: ", "))
        default: return .blank
        }
    }
}

/// One table of the fake base: its schema and its records in creation order.
struct FakeTable {
    var id: String
    var name: String
    var fields: [FakeField]
    private(set) var records: [StoredRecord] = []
    private var index: [String: Int] = [:]

    init(id: String, name: String, fields: [FakeField]) {
        self.id = id
        self.name = name
        self.fields = fields
    }

    var primaryFieldName: String { fields[0].name }

    func field(named name: String) -> FakeField? { fields.first { $0.name == name } }

    func record(id: String) -> StoredRecord? { index[id].map { records[$0] } }

    mutating func insert(_ record: StoredRecord) {
        index[record.id] = records.count
        records.append(record)
    }

    mutating func replace(_ record: StoredRecord) {
        if let position = index[record.id] { records[position] = record }
    }

    mutating func remove(ids: Set<String>) {
        records.removeAll { ids.contains($0.id) }
        index = Dictionary(uniqueKeysWithValues: records.enumerated().map { ($1.id, $0) })
    }
}

/// The fake base: the Project tracker template's tables, the people its collaborator fields know, and page cursors.
struct FakeBase {
    /// The template's field names, which `FakeAirtable.Options.renamedFields` can change.
    static let templateFields: [(String, String)] = [
        ("Name", "singleLineText"), ("Category", "singleSelect"), ("Complete", "checkbox"),
        ("Kickoff date", "date"), ("Due date", "date"), ("Project lead", "singleCollaborator"),
        ("Project team", "multipleCollaborators"), ("Client", "multipleRecordLinks"), ("Notes", "multilineText"),
        ("Project images", "multipleAttachments"), ("Tasks", "multipleRecordLinks"),
    ]
    static let categories = ["Brand identity", "Industrial design", "Healthcare design", "Technology design"]
    static let clientsTableID = "tblFAKEclients001"
    static let tasksTableID = "tblFAKEtasks00001"

    var tables: [FakeTable]
    /// Whether `typecast` may add choices to a select field.
    var allowsSchemaChanges: Bool
    /// Collaborators by lower-cased email: `{id, email, name}`.
    var collaborators: [String: [String: Any]] = [:]
    /// Page cursors: offset → (the snapshot of matching ids, the position of the next page, when it was made).
    var cursors: [String: (ids: [String], position: Int, created: Date)] = [:]

    /// The template base holding `projects` (records keyed by the template's field names) in its projects table.
    init(options: FakeAirtable.Options, projects: [[String: Any]]) {
        let rename = { (name: String) in options.renamedFields[name] ?? name }
        allowsSchemaChanges = options.allowsSchemaChanges
        var projectFields: [FakeField] = []
        for (index, (name, type)) in Self.templateFields.enumerated() where !options.removedFields.contains(name) {
            var field = FakeField(id: "fldFAKEproj\(String(format: "%06d", index))", name: rename(name), type: type)
            if name == "Category" { field.choices = Self.categories }
            if name == "Client" { field.linkedTableID = Self.clientsTableID }
            if name == "Tasks" { field.linkedTableID = Self.tasksTableID }
            projectFields.append(field)
        }
        var projectsTable = FakeTable(id: options.tableID, name: options.table, fields: projectFields)
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
            projectsTable.insert(
                StoredRecord(
                    id: id, createdTime: object["createdTime"] as? String ?? "2026-01-01T00:00:00.000Z", fields: fields)
            )
        }
        var clients = FakeTable(
            id: Self.clientsTableID, name: "Clients",
            fields: [
                FakeField(id: "fldFAKEclient0001", name: "Name", type: "singleLineText"),
                FakeField(id: "fldFAKEclient0002", name: "About", type: "multilineText"),
            ])
        for (index, id) in clientIDs.enumerated() {
            let name = index < options.clientNames.count ? options.clientNames[index] : "Client \(index + 1)"
            clients.insert(StoredRecord(id: id, createdTime: "2020-01-01T00:00:00.000Z", fields: ["Name": name]))
        }
        let tasks = FakeTable(
            id: Self.tasksTableID, name: "Tasks",
            fields: [FakeField(id: "fldFAKEtask000001", name: "Name", type: "singleLineText")])
        tables = [projectsTable, clients, tasks]
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

    /// A record of any table of the base, as Airtable's GET of one record finds it.
    func anyRecord(id: String) -> StoredRecord? {
        tables.lazy.compactMap { $0.record(id: id) }.first
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
