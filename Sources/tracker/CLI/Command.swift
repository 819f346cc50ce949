#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// A subcommand: its words (the spec), its options read from the command line, and its run, side by side: in
/// Commands/ for the commands only the command line has, in Faces/Name+CommandLine.swift for an operation's face.
/// `CommandRegistry.all` lists them.
protocol Command: Equatable, Sendable {
    /// What the parser, `help`, the man page and completion read.
    static var spec: CommandSpec { get }

    /// Gives the scanned words their meaning, refusing what no request is needed to refuse; relative dates are
    /// resolved against `today`.
    init(_ arguments: ScannedArguments, today: CalendarDate) throws

    /// Does the work, with what the runner prepares (configuration, client, output).
    func run(_ runner: Runner) async throws
}

extension Command {
    /// Whether `other` is this same command with the same options.
    func isEqual(to other: any Command) -> Bool { (other as? Self) == self }
}

/// Options every command shares.
struct GlobalOptions: Equatable, Sendable {
    var secretsPath: String?
    /// The profile of the secrets file to use (`--profile`).
    var profile: String?
    var timeoutSeconds: Int?
    /// `--max-age SECONDS`: a read command answers from a team's copy refreshed within that long.
    var maxAge: Double?
    var isVerbose = false
    var color = ColorChoice.auto
}

/// A parsed command line: the work to do, before any of it is done.
struct Invocation: Equatable, Sendable {
    var command: any Command
    var globals: GlobalOptions

    init(command: any Command, globals: GlobalOptions = GlobalOptions()) {
        self.command = command
        self.globals = globals
    }

    static func == (left: Invocation, right: Invocation) -> Bool {
        left.globals == right.globals && left.command.isEqual(to: right.command)
    }
}
