/// Options every command shares.
public struct GlobalOptions: Equatable, Sendable {
    public var secretsPath: String?
    /// The profile of the secrets file to use (`--profile`).
    public var profile: String?
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

/// What `list --sort` orders by: one of tracker's fields, or a field of the base by name.
public enum SortKey: Equatable, Sendable {
    case word(SortField)
    case field(String)
}

/// What `tracker list` was asked for.
public struct ListOptions: Equatable, Sendable {
    /// The explicit format; nil picks a table on a terminal and TSV otherwise.
    public var format: ListFormat?
    public var filters: ProjectFilters
    public var sort: SortKey?
    public var descending: Bool
    public var limit: Int?
    /// The table, TSV and CSV columns, in order.
    public var columns: [ListColumn]
    /// A saved view of the table, whose filters and order Airtable applies first.
    public var view: String?

    public init(
        format: ListFormat? = nil, filters: ProjectFilters = ProjectFilters(), sort: SortKey? = nil,
        descending: Bool = false, limit: Int? = nil, columns: [ListColumn] = ListColumn.defaults, view: String? = nil
    ) {
        self.format = format
        self.filters = filters
        self.sort = sort
        self.descending = descending
        self.limit = limit
        self.columns = columns
        self.view = view
    }
}

/// Where `add` takes its notes from.
public enum NotesSource: Equatable, Sendable {
    case text(String)
    case file(String)
    case standardInput
}

/// How a write command reports: `--dry-run` prints the requests instead of sending them, `--json` prints project
/// objects instead of ids, `-q` prints nothing.
public struct WriteMode: Equatable, Sendable {
    public var dryRun = false
    public var json = false
    public var quiet = false

    public init(dryRun: Bool = false, json: Bool = false, quiet: Bool = false) {
        self.dryRun = dryRun
        self.json = json
        self.quiet = quiet
    }
}

/// What `tracker add` was asked for; the name and the due date are always there.
public struct AddOptions: Equatable, Sendable {
    public var input: ProjectInput
    public var ifAbsent = false
    public var mode = WriteMode()

    public init(input: ProjectInput, ifAbsent: Bool = false, mode: WriteMode = WriteMode()) {
        self.input = input
        self.ifAbsent = ifAbsent
        self.mode = mode
    }

    public var name: String { input.name ?? "" }
}

/// What `tracker show` was asked for.
public struct ShowOptions: Equatable, Sendable {
    public var target: String
    public var json = false

    public init(target: String, json: Bool = false) {
        self.target = target
        self.json = json
    }
}

/// What `tracker update` was asked for: one project and the fields to change.
public struct UpdateOptions: Equatable, Sendable {
    public var target: String
    public var input: ProjectInput
    public var mode = WriteMode()

    public init(target: String, input: ProjectInput, mode: WriteMode = WriteMode()) {
        self.target = target
        self.input = input
        self.mode = mode
    }
}

/// What `tracker done`, `reopen` and `delete` were asked for: the projects, by id or name.
public struct ProjectsOptions: Equatable, Sendable {
    public var targets: [String]
    public var mode = WriteMode()
    /// `delete --yes`: no question asked.
    public var confirmed = false

    public init(targets: [String], mode: WriteMode = WriteMode(), confirmed: Bool = false) {
        self.targets = targets
        self.mode = mode
        self.confirmed = confirmed
    }
}

/// What `tracker import` was asked for.
public struct ImportOptions: Equatable, Sendable {
    /// The file to read; nil or `-` for standard input.
    public var file: String?
    /// The format; nil takes it from the file's extension, else from what the text looks like.
    public var format: ImportFormat?
    /// The fields that match a row to an existing project: one to three of name, due, category.
    public var key: [FieldMap.Word] = [.name]
    public var mode = WriteMode()

    public init(
        file: String? = nil, format: ImportFormat? = nil, key: [FieldMap.Word] = [.name], mode: WriteMode = WriteMode()
    ) {
        self.file = file
        self.format = format
        self.key = key
        self.mode = mode
    }
}

/// What `tracker init` was asked for.
public struct InitOptions: Equatable, Sendable {
    public var base: String?
    public var table: String?
    /// Where to write; nil for the user's own secrets file.
    public var path: String?
    public var force = false
    /// The program that prints the token, written as `tokenCommand` instead of a token.
    public var tokenCommand: [String]?

    public init(
        base: String? = nil, table: String? = nil, path: String? = nil, force: Bool = false,
        tokenCommand: [String]? = nil
    ) {
        self.base = base
        self.table = table
        self.path = path
        self.force = force
        self.tokenCommand = tokenCommand
    }
}

/// A parsed command line: the work to do, before any of it is done.
public enum Command: Equatable, Sendable {
    case list(ListOptions)
    case add(AddOptions)
    case show(ShowOptions)
    case update(UpdateOptions)
    case done(ProjectsOptions)
    case reopen(ProjectsOptions)
    case delete(ProjectsOptions)
    case importProjects(ImportOptions)
    case initialize(InitOptions)
    case doctor(json: Bool)
    case completion(Shell)
    case help(topic: String?)
    case manual
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
