import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything a command touches outside its own arguments, injected so tests are fast and deterministic.
public struct Context: Sendable {
    public var environment: [String: String]
    public var output: Output
    public var currentDirectory: String
    /// The wall clock, for "today" and for creation times.
    public var now: @Sendable () -> Date
    public var timeZone: TimeZone
    /// How requests travel: libcurl on Linux, URLSession on macOS, a stub in tests.
    public var makeTransport: @Sendable (_ timeoutSeconds: Int) -> any HTTPTransport
    /// The directory shared with other tracker processes; prepared only when a command needs it.
    public var prepareRuntimeDirectory: @Sendable () -> RuntimeDirectory
    public var makePacer: @Sendable (Configuration, RuntimeDirectory) -> any RequestPacer
    /// Clock, sleep and randomness for retries.
    public var network: NetworkHelper.Environment
    public var readStandardInput: @Sendable () -> Data
    /// Whether standard input is a terminal, where tracker may ask questions.
    public var isStdinTerminal: Bool
    /// One line typed at the terminal (an answer), nil at the end of input.
    public var readLine: @Sendable () -> String?
    /// Asks for a secret on the terminal without echoing it (`tracker init`).
    public var readSecret: @Sendable (_ prompt: String) -> String? = { TerminalEcho.readHidden(prompt: $0) }
    /// Ctrl-C, for commands that stop cleanly between requests.
    public var interruption = Interruption()
    /// Where the schema and resolved names are remembered between commands; nil remembers nothing.
    public var cacheDirectory: CacheDirectory?

    public init(
        environment: [String: String], output: Output, currentDirectory: String,
        now: @escaping @Sendable () -> Date = Date.init, timeZone: TimeZone = .current,
        makeTransport: @escaping @Sendable (Int) -> any HTTPTransport = NetworkHelper.makeTransport(timeoutSeconds:),
        prepareRuntimeDirectory: @escaping @Sendable () -> RuntimeDirectory = { RuntimeDirectory.none },
        makePacer: @escaping @Sendable (Configuration, RuntimeDirectory) -> any RequestPacer = Context.filePacer,
        network: NetworkHelper.Environment = NetworkHelper.Environment(),
        readStandardInput: @escaping @Sendable () -> Data = { FileHandle.standardInput.readDataToEndOfFile() },
        isStdinTerminal: Bool = false, readLine: @escaping @Sendable () -> String? = { Swift.readLine() },
        cacheDirectory: CacheDirectory? = nil
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
    }

    /// The real process: its streams, working directory, clock and a machine-wide pacer.
    public static func live(environment: [String: String]) -> Context {
        Context(
            environment: environment, output: .standard(environment: environment),
            currentDirectory: FileManager.default.currentDirectoryPath,
            prepareRuntimeDirectory: { RuntimeDirectory.prepare(environment: environment) },
            isStdinTerminal: isatty(STDIN_FILENO) == 1,
            cacheDirectory: CacheDirectory.location(environment: environment))
    }

    /// Paces through a slot file shared by every tracker process using the same base.
    @Sendable public static func filePacer(_ configuration: Configuration, _ directory: RuntimeDirectory)
        -> any RequestPacer
    {
        let base = FileRequestPacer(
            directory: directory,
            name: FileRequestPacer.slotName(endpoint: configuration.endpoint, baseID: configuration.baseID),
            requestsPerSecond: configuration.requestsPerSecond)
        // Airtable also limits a token to 50 requests a second across all its bases; a pace set above that is for a
        // server that is not Airtable, and the token's budget follows it.
        let token = FileRequestPacer(
            directory: directory,
            name: FileRequestPacer.slotName(endpoint: configuration.endpoint, token: configuration.token),
            requestsPerSecond: max(FileRequestPacer.tokenRequestsPerSecond, configuration.requestsPerSecond))
        return TwoBudgetPacer(base: base, token: token)
    }
}
