/// A person in a collaborator field.
public struct Collaborator: Equatable, Sendable, Decodable {
    public var id: String?
    public var name: String?
    public var email: String?

    public init(id: String? = nil, name: String? = nil, email: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
    }

    /// The best single word for the person: the name, else the email.
    public var displayName: String { name ?? email ?? id ?? "" }
}

/// Where a project stands on a given day.
public enum ProjectStatus: String, Sendable, CaseIterable {
    case done, overdue, open
}

/// One field of a record and its value as Airtable returned it.
public struct FieldValue: Equatable, Sendable {
    public var name: String
    public var value: JSONValue

    public init(_ name: String, _ value: JSONValue) {
        self.name = name
        self.value = value
    }
}

/// One row of the "Design projects" table: the fields tracker reads, and the base's own fields as they came.
public struct Project: Equatable, Sendable {
    public var id: String
    public var createdTime: String
    public var name: String?
    public var category: String?
    public var isComplete: Bool
    public var kickoff: CalendarDate?
    public var due: CalendarDate?
    public var lead: Collaborator?
    public var team: [Collaborator]
    public var clients: [String]
    public var notes: String?
    /// The record's other fields, in the order Airtable sent them.
    public var otherFields: [FieldValue]
    /// How far its tasks are, when a command read them (`list --columns tasks,days-left`); nil otherwise.
    public var taskProgress: TaskProgress? = nil

    public init(
        id: String, createdTime: String, name: String? = nil, category: String? = nil, isComplete: Bool = false,
        kickoff: CalendarDate? = nil, due: CalendarDate? = nil, lead: Collaborator? = nil, team: [Collaborator] = [],
        clients: [String] = [], notes: String? = nil, otherFields: [FieldValue] = []
    ) {
        self.id = id
        self.createdTime = createdTime
        self.name = name
        self.category = category
        self.isComplete = isComplete
        self.kickoff = kickoff
        self.due = due
        self.lead = lead
        self.team = team
        self.clients = clients
        self.notes = notes
        self.otherFields = otherFields
    }

    /// `done` when complete, `overdue` when due before `today`, else `open`.
    public func status(today: CalendarDate) -> ProjectStatus {
        if isComplete { return .done }
        if let due, due < today { return .overdue }
        return .open
    }
}
