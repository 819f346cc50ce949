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
    /// The base's own fields to empty, by name as typed (`--clear Budget`).
    public var clearedFields: [String]
    /// Values for the base's fields by name, as typed (`--set Budget=1200`), in order; the last one for a field wins.
    public var assignments: [FieldAssignment]

    public init(
        name: String? = nil, due: CalendarDate? = nil, kickoff: CalendarDate? = nil, category: String? = nil,
        lead: String? = nil, team: [String]? = nil, clients: [String]? = nil, notes: NotesSource? = nil,
        complete: Bool? = nil, cleared: [FieldMap.Word] = [], clearedFields: [String] = [],
        assignments: [FieldAssignment] = []
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
        self.clearedFields = clearedFields
        self.assignments = assignments
    }

    /// Whether the input changes anything.
    public var isEmpty: Bool { self == ProjectInput() }

    /// Whether a value can only be checked against the base's schema: a choice, a person, a client, one of the base's
    /// own fields. A write of the others need not wait for the schema.
    public var needsSchema: Bool {
        category != nil || lead != nil || team != nil || clients != nil || !assignments.isEmpty
            || !clearedFields.isEmpty
    }
}

/// `--set FIELD=VALUE`: a value for one of the base's fields, by its name as typed.
public struct FieldAssignment: Equatable, Sendable {
    public var field: String
    public var value: String

    public init(field: String, value: String) {
        self.field = field
        self.value = value
    }
}

/// The cells to send for one project, in the order given; `.null` empties a cell. Cells not here are left as they are.
public typealias ProjectWrite = RecordWrite<ProjectWord>
/// The cells of a task to send.
public typealias TaskWrite = RecordWrite<TaskWord>

/// The cells of one record to send, by tracker's words or the base's own field names: written once for every table.
public struct RecordWrite<TableWordType: TableWord>: Equatable, Sendable {
    /// The table's words.
    public typealias Word = TableWordType

    /// A cell: one of tracker's words, or another field of the base by its Airtable name.
    public enum Target: Hashable, Sendable {
        case word(Word)
        case field(String)
    }

    public private(set) var cells: [(target: Target, value: JSONValue)] = []

    public init() {}

    public init(_ cells: [(Word, JSONValue)]) {
        for (word, value) in cells { self[word] = value }
    }

    /// The value to send for `target`, nil when the cell is left alone.
    public subscript(_ target: Target) -> JSONValue? {
        get { cells.first { $0.target == target }?.value }
        set {
            cells.removeAll { $0.target == target }
            if let newValue { cells.append((target, newValue)) }
        }
    }

    /// The value to send for `word`, nil when the cell is left alone.
    public subscript(_ word: Word) -> JSONValue? {
        get { self[.word(word)] }
        set { self[.word(word)] = newValue }
    }

    /// The Airtable field a cell goes to; nil for a word the base lacks (which checks keep out of a write).
    public static func fieldName(_ target: Target, _ map: TableFields<Word>) -> String? {
        switch target {
        case .word(let word): map[word]
        case .field(let name): name
        }
    }

    /// The `fields` object Airtable takes, with the base's field names.
    public func fields(_ map: TableFields<Word>) -> JSONValue {
        .object(cells.compactMap { cell in Self.fieldName(cell.target, map).map { ($0, cell.value) } })
    }

    public static func == (lhs: RecordWrite, rhs: RecordWrite) -> Bool {
        lhs.cells.map(\.target) == rhs.cells.map(\.target) && lhs.cells.map(\.value) == rhs.cells.map(\.value)
    }
}

/// Where `add` takes its notes from.
public enum NotesSource: Equatable, Sendable {
    case text(String)
    case file(String)
    case standardInput
}
