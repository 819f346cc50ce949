import TrackerAPI
import TrackerModel
import TrackerOperations

/// One tool `tracker mcp` offers: a command of the registry run the same way, with arguments in place of its flags.
/// Its schema is read off the command's own flag specs, so a flag added to a command appears in its tool.
package struct MCPTool: Sendable {
    package var name: String
    package var title: String
    /// When a model should use it, in two sentences at most.
    package var description: String
    /// The command it runs, by its operation's own spec (the tool's schema is read off its flags).
    package var command: CommandSpec
    /// The verb, for a command word that serves several (`task add`).
    package var verb: String? = nil
    /// The command's positional words, named for what they are.
    package var positionals: [Positional] = []
    /// The only flags of the command the tool offers, when its command word serves several verbs (`task`).
    package var onlyFlags: [String]? = nil
    /// Flags of the command this tool does not offer as they are: the tool gives them itself, or by another name.
    package var withheld: Set<String> = []
    /// Flags the tool always gives: the stable JSON it reads the result from.
    package var fixed: [String] = []
    package var result: ResultShape
    package var annotations: Annotations
    /// Arguments of the tool's own that are not a flag as they stand.
    package var extras: [Extra] = []
    /// What the tool does when called: its command's operation, its outcome encoded (declared last, so no tool is
    /// declared without it).
    package var run: ToolRun

    /// A positional word of the command.
    package struct Positional: Sendable {
        package var name: String
        package var description: String
        package var isRequired = true
        /// A path the file rules check: read from (attach) or written into (download).
        package var path: PathUse? = nil
        /// When this argument is given, `name` is the command's flag `--name` instead (a comment on a task narrows its
        /// search with `--project`).
        package var flagWhen: String? = nil
    }

    package enum PathUse: Sendable { case read, writeDirectory }

    /// How the command's standard output becomes the tool's structured result.
    package enum ResultShape: Sendable {
        /// One JSON object (`show --json`), with `keys` its top-level members for the output schema.
        case object(keys: [(String, String)])
        /// One JSON array, wrapped under its noun with its count.
        case array(noun: String, item: String)
        /// NDJSON lines, at most `limit` kept, all counted: `{noun: […], total, truncated}`.
        case listing(noun: String, item: String)
        /// Plain lines (ids, paths), wrapped under the noun.
        case lines(noun: String, item: String)
    }

    /// The hints MCP clients read to decide what to ask a person before a call (untrusted by them, true of tracker).
    package struct Annotations: Sendable {
        package var readOnly: Bool
        package var destructive = false
        package var idempotent = false
    }

    /// Arguments a tool has beyond its command's flags.
    package enum Extra: Sendable, Equatable {
        /// `limit`: how many records a listing returns (the total is counted whatever it is).
        case limit
        /// `confirm`: a delete is sent only with `"confirm": true`, as `--yes`.
        case confirm
        /// `if_absent`: on unless `false`, so a repeated call never creates twice.
        case ifAbsent
        /// `complete`: `--complete`/`--incomplete`.
        case completeFlags
        /// `complete`: `task done`/`task reopen` on the task, after any other change.
        case completeVerbs
        /// `limit` for a digest (`report`, `status`): at most this many items in each of its lists, each list given
        /// as `{items, total, truncated}`, so one call never floods an assistant's context.
        case sectionLimit
    }

    /// The command's words: `["task", "add"]`.
    package var words: [String] { [command.name] + (verb.map { [$0] } ?? []) }

    /// Whether the tool only reads.
    package var isReadOnly: Bool { annotations.readOnly }
}

extension MCPTool {
    /// Small enough that no default answer on a base of 1,016 projects passes about 30,000 characters (a project with
    /// its fields is near 1,800; `benchmark --mcp` measures every tool's).
    package static let defaultLimit = 7
    /// The same for a digest's lists (`report` has five).
    package static let defaultSectionLimit = 4
    package static let maximumLimit = 1000

    /// Flags no tool offers as they are: the output is the tool's to choose, a file or stdin is not an argument (stdin
    /// carries the protocol), and the face gives `--yes`, `--if-absent` and `--limit` itself.
    package static let faceFlags: Set<String> = [
        "--json", "--format", "--quiet", "--dry-run", "--columns", "--notes-file", "--file", "--yes", "--if-absent",
        "--limit", "--to", "--from", "--always",
    ]

    /// The argument name of a flag: `--due-within` is `due_within`.
    package static func argumentName(_ flag: String) -> String {
        String(flag.drop { $0 == "-" }.map { $0 == "-" ? "_" : $0 })
    }
}
