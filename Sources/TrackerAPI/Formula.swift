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
    /// holds it ignoring case (cli-spec.md "Naming a project").
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

    /// The one formula for `filters`, with every user value a string literal; nil when nothing is filtered.
    ///
    /// Every field a filter needs must be in `fields` (`ProjectFilters.neededWords` says which, for the command line
    /// to check first); a filter whose field is missing matches nothing rather than everything.
    public static func matching(_ filters: ProjectFilters, today: CalendarDate, fields: FieldMap) -> String? {
        func named(_ word: FieldMap.Word) -> String { fields[word].map(field) ?? "BLANK()" }
        let due = named(.due)
        let complete = fields.completion.map(isComplete)
        var terms: [String] = []
        if filters.overdue {
            if let complete { terms.append("NOT(\(complete))") }
            terms.append("IS_BEFORE(\(due), \(literal(today.description)))")
        }
        if let date = filters.dueBefore { terms.append("IS_BEFORE(\(due), \(literal(date.description)))") }
        if let days = filters.dueWithinDays {
            let last = CalendarDate(dayNumber: today.dayNumber + days)
            terms.append("NOT(IS_BEFORE(\(due), \(literal(today.description))))")
            terms.append("NOT(IS_AFTER(\(due), \(literal(last.description))))")
        }
        if filters.dueBefore != nil || filters.dueWithinDays != nil || filters.overdue { terms.insert(due, at: 0) }
        switch filters.complete {
        case true?: terms.append(complete ?? "FALSE()")
        case false?: terms.append(complete.map { "NOT(\($0))" } ?? "FALSE()")
        case nil: break
        }
        // Ignoring case, so `--category "brand identity"` needs neither the schema nor the choice's spelling, whatever
        // the field is called in this base.
        if let category = filters.category {
            terms.append(fields[.category].map { equalsIgnoringCase($0, category) } ?? "FALSE()")
        }
        if let lead = filters.leadName {
            terms.append(fields[.lead].map { equalsIgnoringCase($0, lead) } ?? "FALSE()")
        }
        // A team member by name narrows on Airtable (the cell reads as names joined); tracker checks the name exactly.
        if let member = filters.team, !member.contains("@"), member.lowercased() != "me" {
            terms.append(
                fields[.team].map { "FIND(LOWER(\(literal(member))), LOWER(\(field($0))))" } ?? "FALSE()")
        }
        // A client narrows by name on Airtable (a link reads as the linked names there); tracker checks the id.
        if let client = filters.clientName {
            terms.append(
                fields[.client].map { "FIND(LOWER(\(literal(client))), LOWER(\(field($0))))" } ?? "FALSE()")
        } else if filters.client != nil && fields[.client] == nil {
            terms.append("FALSE()")
        }
        // --mine: a project with neither a lead nor a team cannot be anyone's.
        if filters.mine {
            let people = [fields[.lead], fields[.team]].compactMap { $0 }.map(field)
            terms.append(people.isEmpty ? "FALSE()" : any(people))
        }
        if let search = filters.search {
            let needle = "LOWER(\(literal(search)))"
            let haystacks = [fields.name, fields[.notes]].compactMap { $0 }.map {
                "FIND(\(needle), LOWER(\(field($0))))"
            }
            terms.append(any(haystacks))
        }
        var unique: [String] = []
        for term in terms where !unique.contains(term) { unique.append(term) }
        return unique.isEmpty ? nil : all(unique)
    }
}
