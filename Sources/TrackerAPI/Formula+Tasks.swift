import TrackerModel

extension Formula {
    /// The formula for `filters` on the Tasks table, every typed value a string literal; nil when nothing is filtered.
    ///
    /// An assignee by name narrows on Airtable (a collaborator is their name inside a formula); by email or as `me`
    /// Airtable can only keep the tasks someone is assigned to, and tracker matches the person by id or email itself.
    public static func tasksMatching(_ filters: TaskFilters, fields: TaskFieldMap) -> String? {
        var terms: [String] = []
        let complete = fields.completion.map(isComplete)
        switch filters.state {
        case .open: if let complete { terms.append("NOT(\(complete))") }
        case .done: terms.append(complete ?? "FALSE()")
        case .all: break
        }
        if let wanted = filters.assignee?.trimmingWhitespace(), !wanted.isEmpty {
            if let assignee = fields[.assignee] {
                let isName = !wanted.contains("@") && wanted.lowercased() != "me"
                terms.append(isName ? equalsIgnoringCase(assignee, wanted) : field(assignee))
            } else {
                terms.append("FALSE()")
            }
        }
        if let search = filters.search {
            let needle = "LOWER(\(literal(search)))"
            let haystacks = [fields.name, fields[.notes]].compactMap { $0 }.map {
                "FIND(\(needle), LOWER(\(field($0))))"
            }
            terms.append(any(haystacks))
        }
        return terms.isEmpty ? nil : all(terms)
    }
}
