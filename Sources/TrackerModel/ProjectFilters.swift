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
    /// The lead's name, an email address when it contains "@", or `me`.
    public var lead: String?
    /// A team member's name, email or `me`.
    public var team: String?
    /// Projects whose lead or team includes the token's user.
    public var mine = false
    /// A case-insensitive substring of the name or the notes.
    public var search: String?
    /// A client as typed (`--client NAME|ID`); `clientID` and `clientName` once it is looked up in the Clients table.
    public var client: String?
    public var clientID: String?
    public var clientName: String?

    public init(
        overdue: Bool = false, dueBefore: CalendarDate? = nil, dueWithinDays: Int? = nil, complete: Bool? = nil,
        category: String? = nil, lead: String? = nil, team: String? = nil, mine: Bool = false, search: String? = nil
    ) {
        self.overdue = overdue
        self.dueBefore = dueBefore
        self.dueWithinDays = dueWithinDays
        self.complete = complete
        self.category = category
        self.lead = lead
        self.team = team
        self.mine = mine
        self.search = search
    }

    public var isEmpty: Bool { self == ProjectFilters() }

    /// Whether what the filters pick changes with the day alone (overdue, due within): no record need change for it.
    public var movesWithTheDay: Bool { overdue || dueWithinDays != nil }

    /// Whether the lead is to be matched by name in a formula (not an email, not `me`).
    public var leadName: String? { lead.flatMap { $0.contains("@") || Self.isMe($0) ? nil : $0 } }

    /// Whether the token's user must be known (`--mine`, `--lead me`, `--team me`).
    public var needsMe: Bool { mine || lead.map(Self.isMe) == true || team.map(Self.isMe) == true }

    static func isMe(_ text: String) -> Bool { text.lowercased() == "me" }

    /// What only tracker can check, as a formula sees a collaborator's name alone: a person named by email or as `me`
    /// (by the user id `me`, which names and emails cannot change), and a team member exactly; nil when nothing is.
    public func localMatch(me: String?) -> (@Sendable (Project) -> Bool)? {
        @Sendable func matches(_ person: Collaborator?, _ who: String) -> Bool {
            guard let person else { return false }
            if Self.isMe(who) { return me != nil && person.id == me }
            if who.contains("@") { return person.email?.lowercased() == who.lowercased() }
            return person.name?.lowercased() == who.lowercased()
        }
        let lead = self.lead.flatMap { $0.contains("@") || Self.isMe($0) ? $0 : nil }
        let team = self.team
        let mine = self.mine
        let client = self.clientID
        guard lead != nil || team != nil || mine || client != nil else { return nil }
        return { project in
            // A link in a formula reads as the linked records' names, which may repeat: the client is its id.
            if let client, !project.clients.contains(client) { return false }
            if let lead, !matches(project.lead, lead) { return false }
            if let team, !project.team.contains(where: { matches($0, team) }) { return false }
            if mine, !(matches(project.lead, "me") || project.team.contains { matches($0, "me") }) { return false }
            return true
        }
    }

    /// The fields these filters need, each with the flag that needs it: a base without one cannot be filtered by it.
    public var neededWords: [(flag: String, word: FieldMap.Word)] {
        var needed: [(String, FieldMap.Word)] = []
        if overdue { needed.append(("--overdue", .due)) }
        if dueBefore != nil { needed.append(("--due-before", .due)) }
        if dueWithinDays != nil { needed.append(("--due-within", .due)) }
        if let complete { needed.append((complete ? "--complete" : "--incomplete", .complete)) }
        if category != nil { needed.append(("--category", .category)) }
        if lead != nil { needed.append(("--lead", .lead)) }
        if team != nil { needed.append(("--team", .team)) }
        if client != nil { needed.append(("--client", .client)) }
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
