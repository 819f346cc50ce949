/// Options every command shares.
public struct GlobalOptions: Equatable, Sendable {
    public var secretsPath: String?
    public var timeoutSeconds: Int?
    public var isVerbose = false
    public var color = ColorChoice.auto

    public init(
        secretsPath: String? = nil, timeoutSeconds: Int? = nil, isVerbose: Bool = false, color: ColorChoice = .auto
    ) {
        self.secretsPath = secretsPath
        self.timeoutSeconds = timeoutSeconds
        self.isVerbose = isVerbose
        self.color = color
    }
}

/// What `tracker list` was asked for.
public struct ListOptions: Equatable, Sendable {
    /// The explicit format; nil picks a table on a terminal and TSV otherwise.
    public var format: ListFormat?
    public var filters: ProjectFilters
    public var sort: SortField?
    public var descending: Bool
    public var limit: Int?

    public init(
        format: ListFormat? = nil, filters: ProjectFilters = ProjectFilters(), sort: SortField? = nil,
        descending: Bool = false, limit: Int? = nil
    ) {
        self.format = format
        self.filters = filters
        self.sort = sort
        self.descending = descending
        self.limit = limit
    }
}

/// Where `add` takes its notes from.
public enum NotesSource: Equatable, Sendable {
    case text(String)
    case file(String)
    case standardInput
}

/// What `tracker add` was asked for, already checked.
public struct AddOptions: Equatable, Sendable {
    public var draft: ProjectDraft
    public var notesSource: NotesSource?
    public var ifAbsent = false
    public var dryRun = false
    public var json = false
    public var quiet = false

    public init(
        draft: ProjectDraft, notesSource: NotesSource? = nil, ifAbsent: Bool = false, dryRun: Bool = false,
        json: Bool = false, quiet: Bool = false
    ) {
        self.draft = draft
        self.notesSource = notesSource
        self.ifAbsent = ifAbsent
        self.dryRun = dryRun
        self.json = json
        self.quiet = quiet
    }
}

/// What `tracker show` was asked for.
public struct ShowOptions: Equatable, Sendable {
    public var target: String
    public var json = false

    public init(target: String, json: Bool = false) {
        self.target = target
        self.json = json
    }

    /// Whether the target is a record id (`rec` and 14 letters or digits) rather than a name.
    public var isRecordID: Bool {
        target.count == 17 && target.hasPrefix("rec")
            && target.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
    }
}

/// A parsed command line: the work to do, before any of it is done.
public enum Command: Equatable, Sendable {
    case list(ListOptions)
    case add(AddOptions)
    case show(ShowOptions)
    case doctor
    case completion(Shell)
    case help(topic: String?)
    case version
}

/// A command and the global options that came with it.
public struct Invocation: Equatable, Sendable {
    public var command: Command
    public var globals: GlobalOptions

    public init(command: Command, globals: GlobalOptions = GlobalOptions()) {
        self.command = command
        self.globals = globals
    }
}
