import TrackerNetwork
import TrackerModel
/// Builds Airtable formulas in which whatever the user typed stays a string value and can never become syntax.
public enum Formula {
    /// A single-quoted string literal: backslashes, quotes and newlines escaped, so no input can close the quote.
    public static func literal(_ value: String) -> String {
        var text = "'"
        for character in value.unicodeScalars {
            switch character {
            case "\\": text += "\\\\"
            case "'": text += "\\'"
            case "\n": text += "\\n"
            default: text.unicodeScalars.append(character)
            }
        }
        return text + "'"
    }

    /// A field reference; field names come from the configuration, which refuses names with braces.
    public static func field(_ name: String) -> String { "{\(name)}" }

    /// `OR(a, b, …)`, or the one term alone.
    public static func any(_ terms: [String]) -> String {
        terms.count == 1 ? terms[0] : "OR(" + terms.joined(separator: ", ") + ")"
    }

    /// `AND(a, b, …)`, or the one term alone.
    public static func all(_ terms: [String]) -> String {
        terms.count == 1 ? terms[0] : "AND(" + terms.joined(separator: ", ") + ")"
    }

    /// `RECORD_ID() = 'rec…'`: the record with this id, in whichever table the formula filters.
    public static func recordID(is id: String) -> String { "RECORD_ID() = \(literal(id))" }

    /// `LOWER({field}) = LOWER('value')`: the field holds `value`, ignoring case.
    public static func equalsIgnoringCase(_ fieldName: String, _ value: String) -> String {
        "LOWER(\(field(fieldName))) = LOWER(\(literal(value)))"
    }

    /// The records `target` may name: the one with that id, when it has an id's shape, and those whose `nameField`
    /// holds it ignoring case (docs/contract.md "Naming a project").
    public static func idOrName(_ target: String, nameField: String) -> [String] {
        (ProjectAPIClient.looksLikeRecordID(target) ? [recordID(is: target)] : [])
            + [equalsIgnoringCase(nameField, target)]
    }

    /// `{Name} = 'value'`.
    public static func nameEquals(_ name: String, field nameField: String) -> String {
        "\(field(nameField)) = \(literal(name))"
    }

    /// The term that holds for complete projects, as the base records completion.
    public static func isComplete(_ completion: FieldMap.Completion) -> String {
        switch completion {
        case .checkbox(let name): field(name)
        case .select(let name, let done, _): "\(field(name)) = \(literal(done))"
        }
    }

    /// What `filters` pick, defined once, every user value a string literal in the formula (nil when nothing is
    /// filtered): each term as the formula Airtable evaluates and, beside it, the predicate
    /// that means the same on a project tracker holds (a face's copy of the table answers with it).
    ///
    /// Every field a filter needs must be in `fields` (`ProjectFilters.neededWords` says which, for the command line
    /// to check first); a filter whose field is missing matches nothing rather than everything.
    public static func selection(_ filters: ProjectFilters, today: CalendarDate, fields: FieldMap) -> Selection<Project>
    {
        var terms = Selection<Project>.Terms()
        let none = ("FALSE()", Selection<Project>.never)
        func named(_ word: FieldMap.Word) -> String { fields[word].map(field) ?? "BLANK()" }
        let due = named(.due)
        let complete = fields.completion.map(isComplete)
        // A blank date is never before or after one: the formula's `{Due}` term, a project's nil.
        func dueIs(_ test: @escaping @Sendable (CalendarDate) -> Bool) -> @Sendable (Project) -> Bool {
            { project in project.due.map(test) ?? false }
        }
        let todayText = literal(today.description)
        if filters.overdue {
            if let complete { terms.add("NOT(\(complete))") { !$0.isComplete } }
            terms.add("IS_BEFORE(\(due), \(todayText))", dueIs { $0 < today })
        }
        if let date = filters.dueBefore {
            terms.add("IS_BEFORE(\(due), \(literal(date.description)))", dueIs { $0 < date })
        }
        if let days = filters.dueWithinDays {
            let last = DueWithin(days: days, from: today).lastDay
            terms.add("NOT(IS_BEFORE(\(due), \(todayText)))", dueIs { !($0 < today) })
            terms.add("NOT(IS_AFTER(\(due), \(literal(last.description))))", dueIs { !(last < $0) })
        }
        if filters.dueBefore != nil || filters.dueWithinDays != nil || filters.overdue {
            terms.insertFirst(due) { $0.due != nil }
        }
        switch filters.complete {
        case true?: complete.map { terms.add($0) { $0.isComplete } } ?? terms.add(none.0, none.1)
        case false?: complete.map { terms.add("NOT(\($0))") { !$0.isComplete } } ?? terms.add(none.0, none.1)
        case nil: break
        }
        // Ignoring case, so `--category "brand identity"` needs neither the schema nor the choice's spelling, whatever
        // the field is called in this base.
        if let category = filters.category {
            let wanted = category.lowercased()
            fields[.category].map {
                terms.add(equalsIgnoringCase($0, category)) { ($0.category ?? "").lowercased() == wanted }
            }
                ?? terms.add(none.0, none.1)
        }
        // A collaborator reads as their name inside a formula.
        if let lead = filters.leadName {
            let wanted = lead.lowercased()
            fields[.lead].map {
                terms.add(equalsIgnoringCase($0, lead)) { ($0.lead?.name ?? "").lowercased() == wanted }
            }
                ?? terms.add(none.0, none.1)
        }
        // A team member by name narrows on Airtable (the cell reads as names joined); tracker checks the name exactly.
        if let member = filters.team, !member.contains("@"), member.lowercased() != "me" {
            let wanted = member.lowercased()
            fields[.team].map { name in
                terms.add("FIND(LOWER(\(literal(member))), LOWER(\(field(name))))") { project in
                    project.team.map { $0.name ?? "" }.joined(separator: ", ").lowercased().contains(wanted)
                }
            } ?? terms.add(none.0, none.1)
        }
        // A client narrows by name on Airtable (a link reads as the linked names there); tracker checks the id, which
        // is all the predicate needs.
        if let client = filters.clientName {
            let id = filters.clientID
            fields[.client].map { name in
                terms.add("FIND(LOWER(\(literal(client))), LOWER(\(field(name))))") { project in
                    id.map { project.clients.contains($0) } ?? true
                }
            } ?? terms.add(none.0, none.1)
        } else if filters.client != nil && fields[.client] == nil {
            terms.add(none.0, none.1)
        }
        // --mine: a project with neither a lead nor a team cannot be anyone's.
        if filters.mine {
            let people = [fields[.lead], fields[.team]].compactMap { $0 }.map(field)
            if people.isEmpty {
                terms.add(none.0, none.1)
            } else {
                terms.add(any(people)) { $0.lead != nil || !$0.team.isEmpty }
            }
        }
        if let search = filters.search {
            terms.addSearch(search, name: fields.name, notes: fields[.notes]) { ($0.name, $0.notes) }
        }
        return terms.selection
    }
}
