import Foundation

/// One stored record; `fields` holds only non-empty cells, as Airtable returns them.
struct StoredRecord {
    var id: String
    var createdTime: String
    var fields: [String: Any]

    func json(fields only: Set<String>?) -> [String: Any] {
        let shown = only.map { names in fields.filter { names.contains($0.key) } } ?? fields
        return ["id": id, "createdTime": createdTime, "fields": shown]
    }

    /// The value a formula sees for a field.
    func formulaValue(_ name: String) -> FormulaValue {
        switch fields[name] {
        case nil: return name == "Complete" ? .bool(false) : .blank
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

/// The table's records, its page cursors and the people and options its fields know.
struct RecordStore {
    static let fieldNames: Set<String> = [
        "Name", "Category", "Complete", "Kickoff date", "Due date", "Project lead", "Project team", "Client", "Notes",
        "Project images", "Tasks",
    ]

    var records: [StoredRecord]
    var index: [String: Int] = [:]
    var categories: Set<String> = ["Brand identity", "Industrial design", "Healthcare design", "Technology design"]
    var collaborators: [String: [String: Any]] = [:]
    /// Page cursors: offset → (the snapshot of matching ids, the position of the next page, when it was made).
    var cursors: [String: (ids: [String], position: Int, created: Date)] = [:]

    init(records: [[String: Any]]) {
        self.records = records.compactMap { object in
            guard let id = object["id"] as? String else { return nil }
            return StoredRecord(
                id: id, createdTime: object["createdTime"] as? String ?? "2026-01-01T00:00:00.000Z",
                fields: object["fields"] as? [String: Any] ?? [:])
        }
        for (position, record) in self.records.enumerated() {
            index[record.id] = position
            var people = (record.fields["Project team"] as? [[String: Any]]) ?? []
            if let lead = record.fields["Project lead"] as? [String: Any] { people.append(lead) }
            for person in people {
                if let email = person["email"] as? String { collaborators[email.lowercased()] = person }
            }
        }
    }

    func record(id: String) -> StoredRecord? { index[id].map { records[$0] } }

    mutating func insert(_ record: StoredRecord) {
        index[record.id] = records.count
        records.append(record)
    }

    static func makeID(prefix: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return prefix + String((0..<14).map { _ in alphabet.randomElement()! })
    }
}
