#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A task a fake base starts with.
public struct FakeTaskSpec: Sendable {
    public var id: String?
    public var name: String
    /// The ids of the projects it links to.
    public var projects: [String]
    public var estimate: Double?
    public var completed: Bool
    /// The assignee's email: one of the base's collaborators.
    public var assignee: String?
    public var notes: String?
    public var createdTime: String

    public init(
        id: String? = nil, _ name: String, projects: [String], estimate: Double? = nil, completed: Bool = false,
        assignee: String? = nil, notes: String? = nil, createdTime: String = "2020-01-01T00:00:00.000Z"
    ) {
        self.id = id
        self.name = name
        self.projects = projects
        self.estimate = estimate
        self.completed = completed
        self.assignee = assignee
        self.notes = notes
        self.createdTime = createdTime
    }

    /// Its cells, keyed by the template's field names.
    func fields(people: [String: [String: Any]]) -> [String: Any] {
        var fields: [String: Any] = ["Name": name]
        if !projects.isEmpty { fields["Design project"] = projects }
        if let estimate { fields["Time estimate (days)"] = estimate }
        if completed { fields["Completed"] = true }
        if let assignee, let person = people[assignee.lowercased()] { fields["Assignee"] = person }
        if let notes { fields["Notes"] = notes }
        return fields
    }
}

/// The template's Tasks table (docs/airtable.md "The template", "The other tables"): its fields, the tasks a fake base
/// starts with, and the
/// inverse link Airtable keeps between a task's "Design project" and a project's "Tasks".
public enum FakeTasks {
    public static let tableID = "tblFAKEtasks00001"

    /// The template's fields, renamed as `renamed` says (`["Time estimate (days)": "Days"]`); `projectsTableID` is what
    /// "Design project" links to.
    static func fields(projectsTableID: String, renamed: [String: String], removed: Set<String>) -> [FakeField] {
        let specs: [(String, String, [String: Any])] = [
            ("Name", "singleLineText", [:]),
            ("Notes", "multilineText", [:]),
            ("Design project", "multipleRecordLinks", [:]),
            ("Time estimate (days)", "number", ["precision": 1]),
            ("Completed", "checkbox", ["icon": "check", "color": "greenBright"]),
            ("Assignee", "singleCollaborator", [:]),
        ]
        return specs.enumerated().compactMap { index, spec in
            guard index == 0 || !removed.contains(spec.0) else { return nil }
            var field = FakeField(id: "fldFAKEtask00000\(index + 1)", name: renamed[spec.0] ?? spec.0, type: spec.1)
            field.options = spec.2
            if spec.1 == "multipleRecordLinks" { field.linkedTableID = projectsTableID }
            return field
        }
    }

    /// What the recorded projects' three task ids hold in a fake base (the recording has their ids only).
    static func recordedContent(_ index: Int, people: [[String: Any]]) -> [String: Any] {
        let names = ["Dieline and proofs", "Keyboard layout", "Hinge prototype"]
        var fields: [String: Any] = ["Name": index < names.count ? names[index] : "Task \(index + 1)"]
        fields["Time estimate (days)"] = [2.5, 1, 3][index % 3]
        if index == 1 { fields["Completed"] = true }
        if !people.isEmpty { fields["Assignee"] = people[index % people.count] }
        return fields
    }

    /// Records keyed by the template's field names, the names then changed as the base renamed them.
    static func renaming(_ fields: [String: Any], _ renamed: [String: String], removed: Set<String>) -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, value) in fields where !removed.contains(name) { result[renamed[name] ?? name] = value }
        return result
    }
}

extension FakeBase {
    /// Keeps the inverse of every link field of `table` that the write changed, as Airtable does: a task linked to a
    /// project appears in the project's Tasks field and leaves it when unlinked or deleted. `old` and `new` are the
    /// record's cells before and after (nil for a record created or deleted).
    mutating func keepInverseLinks(table: Int, recordID: String, old: [String: Any]?, new: [String: Any]?) {
        let source = tables[table]
        for field in source.fields where field.type == "multipleRecordLinks" {
            guard let linkedID = field.linkedTableID, let linked = tableIndex(linkedID),
                let inverse = tables[linked].fields.first(where: {
                    $0.type == "multipleRecordLinks" && $0.linkedTableID == source.id
                })
            else { continue }
            let before = Set(old?[field.name] as? [String] ?? [])
            let after = new?[field.name] as? [String] ?? []
            for id in before.subtracting(after) {
                guard var record = tables[linked].record(id: id) else { continue }
                let kept = (record.fields[inverse.name] as? [String] ?? []).filter { $0 != recordID }
                record.fields[inverse.name] = kept.isEmpty ? nil : kept
                tables[linked].replace(record)
            }
            for id in after where !before.contains(id) {
                guard var record = tables[linked].record(id: id) else { continue }
                var list = record.fields[inverse.name] as? [String] ?? []
                if !list.contains(recordID) { list.append(recordID) }
                record.fields[inverse.name] = list
                tables[linked].replace(record)
            }
        }
    }
}
