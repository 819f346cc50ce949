import TrackerModel

extension Formula {
    /// What `filters` pick on the Tasks table, each term as its formula and its predicate side by side.
    ///
    /// An assignee by name narrows on Airtable (a collaborator is their name inside a formula); by email or as `me`
    /// Airtable can only keep the tasks someone is assigned to, and tracker matches the person by id or email itself.
    public static func taskSelection(_ filters: TaskFilters, fields: TaskFieldMap) -> Selection<ProjectTask> {
        var terms = Selection<ProjectTask>.Terms()
        let complete = fields.completion.map(isComplete)
        switch filters.state {
        case .open: if let complete { terms.add("NOT(\(complete))") { !$0.isComplete } }
        case .done:
            if let complete { terms.add(complete) { $0.isComplete } } else { terms.add("FALSE()", Selection.never) }
        case .all: break
        }
        if let wanted = filters.assignee?.trimmingWhitespace(), !wanted.isEmpty {
            if let assignee = fields[.assignee] {
                let isName = !wanted.contains("@") && wanted.lowercased() != "me"
                let name = wanted.lowercased()
                if isName {
                    terms.add(equalsIgnoringCase(assignee, wanted)) { ($0.assignee?.name ?? "").lowercased() == name }
                } else {
                    terms.add(field(assignee)) { $0.assignee != nil }
                }
            } else {
                terms.add("FALSE()", Selection.never)
            }
        }
        if let search = filters.search {
            terms.addSearch(search, name: fields.name, notes: fields[.notes]) { ($0.name, $0.notes) }
        }
        return terms.selection
    }
}
