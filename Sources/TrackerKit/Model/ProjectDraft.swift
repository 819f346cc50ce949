/// A project as `tracker add` is asked to create it, checked before any request.
public struct ProjectDraft: Equatable, Sendable {
    public var name: String
    public var due: CalendarDate
    public var kickoff: CalendarDate?
    public var category: String?
    public var leadEmail: String?
    public var teamEmails: [String]
    /// Client record ids (`rec…`) or names, which Airtable's typecast matches.
    public var clients: [String]
    public var notes: String?
    public var isComplete: Bool

    public init(
        name: String, due: CalendarDate, kickoff: CalendarDate? = nil, category: String? = nil,
        leadEmail: String? = nil, teamEmails: [String] = [], clients: [String] = [], notes: String? = nil,
        isComplete: Bool = false
    ) {
        self.name = name
        self.due = due
        self.kickoff = kickoff
        self.category = category
        self.leadEmail = leadEmail
        self.teamEmails = teamEmails
        self.clients = clients
        self.notes = notes
        self.isComplete = isComplete
    }
}
