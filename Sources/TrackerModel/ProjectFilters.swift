/// The `list` filters; they combine with AND.
public struct ProjectFilters: Equatable, Sendable {
    /// Due before today and not complete.
    public var overdue = false
    public var dueBefore: CalendarDate?
    /// Due between today and this many days from now, both included.
    public var dueWithinDays: Int?
    /// true for complete only, false for incomplete only.
    public var complete: Bool?
    public var category: String?
    /// The lead's name, or an email address when it contains "@".
    public var lead: String?
    /// A case-insensitive substring of the name or the notes.
    public var search: String?

    public init(
        overdue: Bool = false, dueBefore: CalendarDate? = nil, dueWithinDays: Int? = nil, complete: Bool? = nil,
        category: String? = nil, lead: String? = nil, search: String? = nil
    ) {
        self.overdue = overdue
        self.dueBefore = dueBefore
        self.dueWithinDays = dueWithinDays
        self.complete = complete
        self.category = category
        self.lead = lead
        self.search = search
    }

    public var isEmpty: Bool { self == ProjectFilters() }

    /// Whether a lead email is asked for: formulas only see a collaborator's name, so this one is checked locally.
    public var leadEmail: String? { lead.flatMap { $0.contains("@") ? $0.lowercased() : nil } }

    /// The fields these filters need, each with the flag that needs it: a base without one cannot be filtered by it.
    public var neededWords: [(flag: String, word: FieldMap.Word)] {
        var needed: [(String, FieldMap.Word)] = []
        if overdue { needed.append(("--overdue", .due)) }
        if dueBefore != nil { needed.append(("--due-before", .due)) }
        if dueWithinDays != nil { needed.append(("--due-within", .due)) }
        if let complete { needed.append((complete ? "--complete" : "--incomplete", .complete)) }
        if category != nil { needed.append(("--category", .category)) }
        if lead != nil { needed.append(("--lead", .lead)) }
        return needed
    }
}

/// The fields `list --sort` orders by.
public enum SortField: String, Sendable, CaseIterable {
    case due, name, kickoff, category

    /// The field behind the word.
    public var word: FieldMap.Word {
        switch self {
        case .due: .due
        case .name: .name
        case .kickoff: .kickoff
        case .category: .category
        }
    }
}
