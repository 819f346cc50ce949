#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One table of the fake base: its schema, its views and its records in creation order.
struct FakeTable {
    var id: String
    var name: String
    var fields: [FakeField]
    var views: [FakeView] = []
    private(set) var records: [StoredRecord] = []
    private var index: [String: Int] = [:]
    /// What writes did to the records since the journal was last taken, in order: what webhooks' payloads report.
    private(set) var journal: [(id: String, change: RecordChange)] = []

    enum RecordChange { case created, changed, destroyed }

    /// The journal, emptied.
    mutating func takeJournal() -> [(id: String, change: RecordChange)] {
        defer { journal = [] }
        return journal
    }
    /// The signed download address of an attachment (id, filename), once the download host is serving.
    var sign: (@Sendable (String, String) -> String)?

    init(id: String, name: String, fields: [FakeField], views: [FakeView] = []) {
        self.id = id
        self.name = name
        self.fields = fields
        self.views = views
    }

    var primaryFieldName: String { fields[0].name }

    func field(named name: String) -> FakeField? { fields.first { $0.name == name } }

    func record(id: String) -> StoredRecord? { index[id].map { records[$0] } }

    /// The records with these ids, in the table's order.
    func records(ids: Set<String>) -> [StoredRecord] { ids.compactMap { index[$0] }.sorted().map { records[$0] } }

    /// A view by name or id.
    func view(_ nameOrID: String) -> FakeView? { views.first { $0.name == nameOrID || $0.id == nameOrID } }

    mutating func insert(_ record: StoredRecord) {
        index[record.id] = records.count
        records.append(record)
        journal.append((record.id, .created))
    }

    mutating func replace(_ record: StoredRecord) {
        if let position = index[record.id] {
            records[position] = record
            journal.append((record.id, .changed))
        }
    }

    mutating func remove(ids: Set<String>) {
        for id in ids where index[id] != nil { journal.append((id, .destroyed)) }
        records.removeAll { ids.contains($0.id) }
        index = Dictionary(uniqueKeysWithValues: records.enumerated().map { ($1.id, $0) })
    }

    var types: [String: String] { Dictionary(fields.map { ($0.name, $0.type) }) { first, _ in first } }

    /// What a formula sees for field `name` of `record`, computed fields included.
    func value(_ name: String, of record: StoredRecord, today: String) -> FormulaValue {
        if let field = field(named: name), let formula = field.formula {
            return computed(formula, record, today: today) ?? .blank
        }
        return record.formulaValue(name, type: field(named: name)?.type)
    }

    private func computed(_ formula: String, _ record: StoredRecord, today: String) -> FormulaValue? {
        let stored = types
        guard let evaluator = try? FormulaEvaluator(formula, knownFields: Set(stored.keys)) else { return nil }
        return try? evaluator.evaluate(
            { record.formulaValue($0, type: stored[$0]) }, record: record, today: today)
    }

    /// The record as Airtable returns it: non-empty cells only, computed fields included, `only` those named.
    func json(
        _ record: StoredRecord, fields only: Set<String>?, today: String = FakeDates.today(), signing: Bool = true
    ) -> [String: Any] {
        var cells = record.fields
        for field in fields where field.formula != nil {
            switch computed(field.formula!, record, today: today) {
            case .number(let number)?: cells[field.name] = number
            case .string(let text)? where !text.isEmpty: cells[field.name] = text
            case .bool(true)?: cells[field.name] = 1
            default: cells[field.name] = nil
            }
        }
        var shown = only.map { names in cells.filter { names.contains($0.key) } } ?? cells
        if let sign, signing {
            for field in fields where field.type == "multipleAttachments" {
                guard let list = shown[field.name] as? [[String: Any]] else { continue }
                shown[field.name] = list.map { Self.signed($0, sign) }
            }
        }
        return ["id": record.id, "createdTime": record.createdTime, "fields": shown]
    }
}

extension FakeTable {
    /// An attachment as a read shows it: its address and its thumbnails' signed now, as Airtable signs them per answer.
    static func signed(_ attachment: [String: Any], _ sign: (String, String) -> String) -> [String: Any] {
        guard let id = attachment["id"] as? String else { return attachment }
        var copy = attachment
        let address = sign(id, attachment["filename"] as? String ?? "")
        copy["url"] = address
        if var thumbnails = attachment["thumbnails"] as? [String: Any] {
            for (size, value) in thumbnails {
                guard var thumbnail = value as? [String: Any] else { continue }
                thumbnail["url"] = address
                thumbnails[size] = thumbnail
            }
            copy["thumbnails"] = thumbnails
        }
        return copy
    }
}
