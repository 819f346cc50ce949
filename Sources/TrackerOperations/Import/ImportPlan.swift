#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// What `tracker import` will do with each row, worked out from Airtable's current state before anything is written.
package struct ImportPlan {
    package enum Action {
        /// A new project, sent as an upsert on the key, so sending it again can only update it.
        case create(ProjectWrite)
        /// The one project with the row's key, and the cells that differ from the row.
        case update(Project, ProjectWrite)
        case unchanged(Project)

        /// What a dry run says it would do, and the project it would do it to.
        package var planned: (verb: String, id: String?) {
            switch self {
            case .create: ("create", nil)
            case .update(let project, _): ("update", project.id)
            case .unchanged(let project): ("unchanged", project.id)
            }
        }
    }

    package struct Entry {
        package var line: Int
        package var action: Action

        /// Each stored value given.
        package init(line: Int, action: Action) {
            self.line = line
            self.action = action
        }
    }

    package var entries: [Entry] = []

    package var creates: Int { entries.count { if case .create = $0.action { true } else { false } } }
    package var updates: Int { entries.count { if case .update = $0.action { true } else { false } } }
    package var unchanged: Int { entries.count { if case .unchanged = $0.action { true } else { false } } }

    /// `create 970, update 20, unchanged 10`, with the verbs given.
    package func summary(_ verbs: (String, String, String)) -> String {
        "\(verbs.0) \(creates), \(verbs.1) \(updates), \(verbs.2) \(unchanged)"
    }

    // MARK: - Keys

    /// A row's key: the values of the key fields, as they would be stored (a category in lower case, as it is
    /// compared ignoring case: a base without schema access cannot spell it as its choice does); nil when the row
    /// lacks one.
    package static func key(of write: ProjectWrite, _ fields: [FieldMap.Word]) -> [String]? {
        let values = fields.map { word in write[word]?.stringValue.map { word == .category ? $0.lowercased() : $0 } }
        return values.contains(nil) ? nil : values.compactMap { $0 }
    }

    /// A project's key.
    package static func key(of project: Project, _ fields: [FieldMap.Word]) -> [String] {
        fields.map { word in
            switch word {
            case .name: project.name ?? ""
            case .due: project.due?.description ?? ""
            case .category: (project.category ?? "").lowercased()
            default: ""
            }
        }
    }

    /// A formula for the projects whose key may equal one of `keys`: name ignoring case (matched exactly afterwards),
    /// category ignoring case, whatever the field is called.
    package static func lookupFormula(_ keys: [[String]], _ fields: [FieldMap.Word], map: FieldMap) -> String {
        let rows = keys.map { key in
            let terms = zip(fields, key).map { word, value -> String in
                // The key's words were checked to be fields of this base before planning.
                let name = map[word] ?? word.templateName
                let field = Formula.field(name)
                switch word {
                case .due: return "IS_SAME(\(field), \(Formula.literal(value)), 'day')"
                case .name, .category: return Formula.equalsIgnoringCase(name, value)
                default: return "\(field) = \(Formula.literal(value))"
                }
            }
            return Formula.all(terms)
        }
        return Formula.any(rows)
    }

    // MARK: - Differences

    /// The cells of `write` that differ from what `project` holds; `completion` says how the base keeps completion.
    package static func differing(_ write: ProjectWrite, from project: Project, completion: FieldMap.Completion?)
        -> ProjectWrite
    {
        var changes = ProjectWrite()
        for (target, value) in write.cells where !holds(project, target, value, completion: completion) {
            changes[target] = value
        }
        return changes
    }

    /// Whether `project` already holds `value` in the cell `target` (`null` matches an empty field).
    package static func holds(
        _ project: Project, _ target: ProjectWrite.Target, _ value: JSONValue,
        completion: FieldMap.Completion? = .checkbox(field: "Complete")
    ) -> Bool {
        guard case .word(let word) = target else {
            guard case .field(let name) = target else { return false }
            return same(value, project.otherFields.first { $0.name == name }?.value ?? .null)
        }
        func text(_ stored: String?) -> Bool { (value.stringValue ?? "") == (stored ?? "") }
        func person(_ cell: JSONValue, _ person: Collaborator) -> Bool {
            if let email = cell["email"]?.stringValue { return email.lowercased() == person.email?.lowercased() }
            return cell["id"]?.stringValue == person.id
        }
        switch word {
        case .name: return text(project.name)
        case .due: return text(project.due?.description)
        case .kickoff: return text(project.kickoff?.description)
        // A category typed in another case is the same choice (docs/contract.md "Values tracker checks before
        // writing").
        case .category: return (value.stringValue ?? "").lowercased() == (project.category ?? "").lowercased()
        case .notes: return text(project.notes)
        case .complete:
            // A checkbox takes true or false; a select its done choice, or its open choice or null: a project that is
            // not done holds "not complete" whichever other choice it has.
            if let flag = value.boolValue { return flag == project.isComplete }
            guard case .select(_, let done, _)? = completion else { return false }
            return (value.stringValue == done) == project.isComplete
        case .lead: return project.lead.map { value != .null && person(value, $0) } ?? (value == .null)
        case .team:
            let cells = value.arrayValue ?? []
            return cells.count == project.team.count
                && cells.allSatisfy { cell in project.team.contains { person(cell, $0) } }
        case .client:
            return Set((value.arrayValue ?? []).compactMap(\.stringValue)) == Set(project.clients)
        }
    }

    /// Whether a value to write equals what a field holds as Airtable returned it: empty is empty whatever its shape
    /// (Airtable leaves out `false`, `""` and `[]`), people match by email or id, links and selects as sets, instants
    /// as instants.
    package static func same(_ wanted: JSONValue, _ stored: JSONValue) -> Bool {
        func isEmpty(_ value: JSONValue) -> Bool {
            value == .null || value == .bool(false) || value == .string("") || value.arrayValue?.isEmpty == true
        }
        if isEmpty(wanted) || isEmpty(stored) { return isEmpty(wanted) && isEmpty(stored) }
        switch (wanted, stored) {
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)):
            if a == b { return true }
            guard let x = ISOInstant.date(a), let y = ISOInstant.date(b) else { return false }
            return x == y
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { item in b.contains { same(item, $0) } }
                && b.allSatisfy { item in a.contains { same(item, $0) } }
        case (.object, .object):
            if let email = wanted["email"]?.stringValue {
                return email.lowercased() == stored["email"]?.stringValue?.lowercased()
            }
            if let id = wanted["id"]?.stringValue { return id == stored["id"]?.stringValue }
            if let text = wanted["text"]?.stringValue { return text == stored["text"]?.stringValue }
            return wanted == stored
        default: return wanted == stored
        }
    }
    /// Each stored value given.
    package init(entries: [Entry] = []) {
        self.entries = entries
    }
}
