/// The field values a command line gives for a project (`add`, `update`), before they are checked against the base.
/// A nil value was not given; an update leaves that field as it is.
public struct ProjectInput: Equatable, Sendable {
    public var name: String?
    public var due: CalendarDate?
    public var kickoff: CalendarDate?
    public var category: String?
    /// An email, or the name of a collaborator seen on the table's projects.
    public var lead: String?
    /// Emails or names; the whole team is replaced.
    public var team: [String]?
    /// Client names or record ids; the whole list is replaced.
    public var clients: [String]?
    public var notes: NotesSource?
    public var complete: Bool?
    /// Fields to empty.
    public var cleared: [FieldMap.Word]

    public init(
        name: String? = nil, due: CalendarDate? = nil, kickoff: CalendarDate? = nil, category: String? = nil,
        lead: String? = nil, team: [String]? = nil, clients: [String]? = nil, notes: NotesSource? = nil,
        complete: Bool? = nil, cleared: [FieldMap.Word] = []
    ) {
        self.name = name
        self.due = due
        self.kickoff = kickoff
        self.category = category
        self.lead = lead
        self.team = team
        self.clients = clients
        self.notes = notes
        self.complete = complete
        self.cleared = cleared
    }

    /// Whether the input changes anything.
    public var isEmpty: Bool { self == ProjectInput() }
}

/// The cells to send for one project, by tracker's word, in the order given; `.null` empties a cell. Cells not here
/// are left as they are.
public struct ProjectWrite: Equatable, Sendable {
    public private(set) var cells: [(word: FieldMap.Word, value: JSONValue)] = []

    public init() {}

    public init(_ cells: [(FieldMap.Word, JSONValue)]) {
        for (word, value) in cells { self[word] = value }
    }

    /// The value to send for `word`, nil when the cell is left alone.
    public subscript(_ word: FieldMap.Word) -> JSONValue? {
        get { cells.first { $0.word == word }?.value }
        set {
            cells.removeAll { $0.word == word }
            if let newValue { cells.append((word, newValue)) }
        }
    }

    /// The `fields` object Airtable takes, with the base's field names.
    public func fields(_ map: FieldMap) -> JSONValue { .object(cells.map { (map[$0.word], $0.value) }) }

    public static func == (lhs: ProjectWrite, rhs: ProjectWrite) -> Bool {
        lhs.cells.map(\.word) == rhs.cells.map(\.word) && lhs.cells.map(\.value) == rhs.cells.map(\.value)
    }
}
