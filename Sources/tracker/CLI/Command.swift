import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// Options every command shares.
struct GlobalOptions: Equatable, Sendable {
    var secretsPath: String?
    /// The profile of the secrets file to use (`--profile`).
    var profile: String?
    var timeoutSeconds: Int?
    var isVerbose = false
    var color = ColorChoice.auto

    init(
        secretsPath: String? = nil, timeoutSeconds: Int? = nil, isVerbose: Bool = false, color: ColorChoice = .auto
    ) {
        self.secretsPath = secretsPath
        self.timeoutSeconds = timeoutSeconds
        self.isVerbose = isVerbose
        self.color = color
    }
}

/// What `list --sort` orders by: one of tracker's fields, or a field of the base by name.
enum SortKey: Equatable, Sendable {
    case word(SortField)
    case field(String)
}

/// What `tracker list` was asked for.
struct ListOptions: Equatable, Sendable {
    /// The explicit format; nil picks a table on a terminal and TSV otherwise.
    var format: ListFormat?
    var filters: ProjectFilters
    var sort: SortKey?
    var descending: Bool
    var limit: Int?
    /// The table, TSV and CSV columns, in order.
    var columns: [ListColumn]
    /// A saved view of the table, whose filters and order Airtable applies first.
    var view: String?

    init(
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

/// How a write command reports: `--dry-run` prints the requests instead of sending them, `--json` prints project
/// objects instead of ids, `-q` prints nothing.
struct WriteMode: Equatable, Sendable {
    var dryRun = false
    var json = false
    var quiet = false

    init(dryRun: Bool = false, json: Bool = false, quiet: Bool = false) {
        self.dryRun = dryRun
        self.json = json
        self.quiet = quiet
    }
}

/// What `tracker add` was asked for; the name and the due date are always there.
struct AddOptions: Equatable, Sendable {
    var input: ProjectInput
    var ifAbsent = false
    var mode = WriteMode()

    init(input: ProjectInput, ifAbsent: Bool = false, mode: WriteMode = WriteMode()) {
        self.input = input
        self.ifAbsent = ifAbsent
        self.mode = mode
    }

    var name: String { input.name ?? "" }
}

/// What `tracker show` was asked for.
struct ShowOptions: Equatable, Sendable {
    var target: String
    var json = false

    init(target: String, json: Bool = false) {
        self.target = target
        self.json = json
    }
}

/// What `tracker update` was asked for: one project and the fields to change.
struct UpdateOptions: Equatable, Sendable {
    var target: String
    var input: ProjectInput
    var mode = WriteMode()

    init(target: String, input: ProjectInput, mode: WriteMode = WriteMode()) {
        self.target = target
        self.input = input
        self.mode = mode
    }
}

/// What `tracker done`, `reopen` and `delete` were asked for: the projects, by id or name.
struct ProjectsOptions: Equatable, Sendable {
    var targets: [String]
    var mode = WriteMode()
    /// `delete --yes`: no question asked.
    var confirmed = false

    init(targets: [String], mode: WriteMode = WriteMode(), confirmed: Bool = false) {
        self.targets = targets
        self.mode = mode
        self.confirmed = confirmed
    }
}

/// What `tracker import` was asked for.
struct ImportOptions: Equatable, Sendable {
    /// The file to read; nil or `-` for standard input.
    var file: String?
    /// The format; nil takes it from the file's extension, else from what the text looks like.
    var format: ImportFormat?
    /// The fields that match a row to an existing project: one to three of name, due, category.
    var key: [FieldMap.Word] = [.name]
    var mode = WriteMode()

    init(
        file: String? = nil, format: ImportFormat? = nil, key: [FieldMap.Word] = [.name], mode: WriteMode = WriteMode()
    ) {
        self.file = file
        self.format = format
        self.key = key
        self.mode = mode
    }
}

/// What `tracker init` was asked for.
struct InitOptions: Equatable, Sendable {
    var base: String?
    var table: String?
    /// Where to write; nil for the user's own secrets file.
    var path: String?
    var force = false
    /// The program that prints the token, written as `tokenCommand` instead of a token.
    var tokenCommand: [String]?

    init(
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
enum Command: Equatable, Sendable {
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
struct Invocation: Equatable, Sendable {
    var command: Command
    var globals: GlobalOptions

    init(command: Command, globals: GlobalOptions = GlobalOptions()) {
        self.command = command
        self.globals = globals
    }
}
