#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerNetwork
import TrackerTeam
import TrackerSystem
import TrackerModel
import TrackerOperations

/// Everything a command touches outside its own arguments, injected so tests are fast and deterministic.
struct Context: Sendable {
    var environment: [String: String]
    var output: Output
    var currentDirectory: String
    /// The wall clock, for "today" and for creation times.
    var now: @Sendable () -> Date
    var timeZone: Zone
    /// How requests travel: libcurl on Linux, URLSession on macOS, a stub in tests.
    var makeTransport: @Sendable (_ timeoutSeconds: Int) -> any HTTPTransport
    /// The directory shared with other tracker processes; prepared only when a command needs it.
    var prepareRuntimeDirectory: @Sendable () -> RuntimeDirectory
    /// A pacer of the test's own in place of the shared engine's; nil paces through `coordinate`.
    var makePacer: (@Sendable (Configuration, RuntimeDirectory) -> any RequestPacer)?
    /// The engine that shares the base's budget and the write locks with other tracker processes.
    var coordinate:
        @Sendable (Configuration, RuntimeDirectory, _ warn: @escaping @Sendable (String) -> Void)
            -> any Coordination = Context.sharedCoordination
    /// Clock, sleep and randomness for retries.
    var network: NetworkHelper.Environment
    var readStandardInput: @Sendable () -> Data
    /// Whether standard input is a terminal, where tracker may ask questions.
    var isStdinTerminal: Bool
    /// One line typed at the terminal (an answer), nil at the end of input.
    var readLine: @Sendable () -> String?
    /// Asks for a secret on the terminal without echoing it (`tracker init`).
    var readSecret: @Sendable (_ prompt: String) -> String? = { TerminalEcho.readHidden(prompt: $0) }
    /// Hands an address to the user's browser, detached and silent; false when there is no browser to start.
    var openInBrowser: @Sendable (_ address: String) -> Bool = { _ in false }
    /// Runs `editor` (shell words, as `$EDITOR` holds them) on the file at `path` and waits: its exit status, nil when
    /// a signal ended it.
    var runEditor: @Sendable (_ editor: String, _ path: String) -> Int32? = { _, _ in nil }
    /// Gets the network ready ahead of the first request (loads libcurl in the background); nothing in tests.
    var prepareNetwork: @Sendable () -> Void = {}
    /// Ctrl-C, for commands that stop cleanly between requests.
    var interruption = Interruption()
    /// Where the schema and resolved names are remembered between commands; nil remembers nothing.
    var cacheDirectory: CacheDirectory?
    /// Where `tracker changes` keeps what it saw last; nil when there is nowhere (no HOME).
    var stateDirectory: CacheDirectory?
    /// Whether writes are journaled (see `Workspace.Surface.journals`).
    var journals = true
    /// The configuration read by an earlier command of this process, kept for the next (a server's many calls run
    /// the token command once); nil reads it for every command.
    var rememberedConfiguration: Locked<Configuration?>? = nil
    /// The tables a face that stays keeps between its commands (`board`, `mcp`); nil for one-shot commands.
    var copies: BaseCopies? = nil

    init(
        environment: [String: String], output: Output, currentDirectory: String,
        now: @escaping @Sendable () -> Date = Date.init, timeZone: Zone = .current,
        makeTransport: @escaping @Sendable (Int) -> any HTTPTransport = NetworkHelper.makeTransport(timeoutSeconds:),
        prepareRuntimeDirectory: @escaping @Sendable () -> RuntimeDirectory = { RuntimeDirectory.none },
        makePacer: (@Sendable (Configuration, RuntimeDirectory) -> any RequestPacer)? = nil,
        network: NetworkHelper.Environment = NetworkHelper.Environment(),
        readStandardInput: @escaping @Sendable () -> Data = { Data(POSIX.readAll(STDIN_FILENO)) },
        isStdinTerminal: Bool = false, readLine: @escaping @Sendable () -> String? = { Swift.readLine() },
        cacheDirectory: CacheDirectory? = nil, stateDirectory: CacheDirectory? = nil
    ) {
        self.environment = environment
        self.output = output
        self.currentDirectory = currentDirectory
        self.now = now
        self.timeZone = timeZone
        self.makeTransport = makeTransport
        self.prepareRuntimeDirectory = prepareRuntimeDirectory
        self.makePacer = makePacer
        self.network = network
        self.readStandardInput = readStandardInput
        self.isStdinTerminal = isStdinTerminal
        self.readLine = readLine
        self.cacheDirectory = cacheDirectory
        self.stateDirectory = stateDirectory
    }

    /// Where temporary files go: `$TMPDIR` when it is an absolute path, else /tmp.
    var temporaryDirectory: String {
        let directory = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
    }

    /// The real process: its streams, working directory, clock and a machine-wide pacer.
    static func live(environment: [String: String]) -> Context {
        var context = Context(
            environment: environment, output: .standard(environment: environment),
            currentDirectory: Context.workingDirectory(),
            prepareRuntimeDirectory: { RuntimeDirectory.prepare(environment: environment) },
            isStdinTerminal: isatty(STDIN_FILENO) == 1,
            cacheDirectory: CacheDirectory.location(environment: environment),
            stateDirectory: CacheDirectory.stateLocation(environment: environment))
        context.prepareNetwork = { NetworkHelper.preloadTransport() }
        context.openInBrowser = { Context.startBrowser($0, environment: environment) }
        context.runEditor = { Context.runEditor($0, on: $1) }
        return context
    }

    /// The working directory from getcwd(3) (FileManager's costs its first use more than the rest of start-up's
    /// bookkeeping); "." when it cannot be told.
    static func workingDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `$BROWSER` (its words, then the address), else `xdg-open` (`open` on macOS), started in the background by a shell
    /// with every stream on /dev/null; the address is an argument, never part of the script.
    static func startBrowser(_ address: String, environment: [String: String]) -> Bool {
        #if canImport(Darwin)
            let opener = "open"
        #else
            let opener = "xdg-open"
        #endif
        // BROWSER may list several, separated by colons (as `man` and `xdg-open` read it): the first is tried.
        let browser =
            environment["BROWSER"].flatMap { $0.split(separator: ":").first.map(String.init) }.flatMap {
                $0.trimmingWhitespace().isEmpty ? nil : $0
            } ?? opener
        // SIGHUP ignored, as nohup does: the browser outlives tracker and the terminal it was started from.
        let script =
            #"trap '' HUP; set -- $0 "$1"; command -v "$1" >/dev/null 2>&1 || exit 127; "$@" </dev/null >/dev/null 2>&1 & exit 0"#
        return POSIX.runQuietly(["/bin/sh", "-c", script, browser, address]) == 0
    }

    /// `editor` run by a shell as git runs it (so `EDITOR="code --wait"` works), the path an argument; a stream that is
    /// not a terminal (tracker's output piped) is the controlling terminal for the editor when there is one.
    static func runEditor(_ editor: String, on path: String) -> Int32? {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        func stream(_ descriptor: Int32, _ flags: Int32) -> Int32 {
            guard isatty(descriptor) == 0 else { return descriptor }
            let terminal = open("/dev/tty", flags | O_CLOEXEC)
            guard terminal >= 0 else { return descriptor }
            opened.append(terminal)
            return terminal
        }
        // A command that is not there is 127 before the shell can say so in a line of its own.
        let first = editor.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? editor
        let check =
            first.contains(where: { "'\"\\$`".contains($0) }) ? "" : #"command -v "$1" >/dev/null 2>&1 || exit 127; "#
        let spawned = POSIX.spawn(
            ["/bin/sh", "-c", check + "shift; " + editor + #" "$@""#, editor, first, path],
            standardInput: stream(STDIN_FILENO, O_RDONLY),
            standardOutput: stream(STDOUT_FILENO, O_WRONLY), standardError: stream(STDERR_FILENO, O_WRONLY))
        guard case .success(let pid) = spawned else { return 127 }
        return POSIX.exitStatus(of: pid)
    }

    /// The one place the engine is chosen: the team's Redis when the configuration names one, else this machine's
    /// runtime directory. A process keeps one engine, and one connection, a Redis for all its commands and sessions (a
    /// server's many calls): the budget, the locks, the month's counts, the shared schema and the writes' answers. The
    /// team's copy adds two of its own, for its blocking reads of the news and its long scripts, and a signal's last
    /// release opens a short one.
    @Sendable static func sharedCoordination(
        _ configuration: Configuration, _ directory: RuntimeDirectory, warn: @escaping @Sendable (String) -> Void
    ) -> any Coordination {
        let machine = MachineCoordination(directory: directory)
        guard let address = configuration.redis else { return machine }
        return teams.withLock { teams in
            if let team = teams[address] { return team }
            let team = TeamCoordination(connection: RedisConnection(address: address), machine: machine, warn: warn)
            teams[address] = team
            return team
        }
    }

    private static let teams = Locked<[RedisAddress: TeamCoordination]>([:])
}
