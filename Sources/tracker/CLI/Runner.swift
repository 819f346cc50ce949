#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
import TrackerOperations

/// Executes one parsed invocation; each command lives in its own file under Commands/.
struct Runner {
    var invocation: Invocation
    var context: Context
    /// Read once, so a whole command (a long listing past midnight included) sees one date.
    let today: CalendarDate
    /// The runtime directory, prepared at most once per command.
    private let runtimeDirectory = Locked<RuntimeDirectory?>(nil)
    /// The configuration, read at most once per command: a token command runs once however often it is needed.
    private let configuration = Locked<Configuration?>(nil)
    /// Whether this run may still be run again with the schema first, and the schema read in flight for it.
    var attempt = SchemaAttempt()
    /// What tracker is waiting for, on a terminal's stderr; nil elsewhere.
    let status: StatusLine?
    /// The context's streams, clearing the status line before each write.
    let output: Output
    /// The person's editor, offered to sessions only by the command that edits (`edit`).
    var editor: FormEditor? = nil

    init(invocation: Invocation, context: Context, today: CalendarDate) {
        self.invocation = invocation
        self.context = context
        self.today = today
        let status = context.output.isStderrTerminal ? StatusLine(write: context.output.rawStandardError) : nil
        self.status = status
        self.output = status?.clearing(context.output) ?? context.output
        // A Ctrl-C that ends tracker at once must not leave the line for the shell's prompt to land on.
        if let status { context.interruption.beforeEnding { status.clear() } }
    }
    var style: Style {
        Style(
            isEnabled: invocation.globals.color.isEnabled(
                isTerminal: output.isStdoutTerminal, environment: context.environment))
    }

    func execute() async throws {
        defer { status?.clear() }
        do {
            try await invocation.command.run(self)
        } catch let error where attempt.mayReadBeside {
            // Nothing was written before the schema was confirmed: run again, the schema first, when it says the
            // work went out with the wrong fields (or failed for that reason).
            guard let inFlight = attempt.inFlight else { throw error }
            if !(error is SchemaInFlight.Contradicted) {
                guard await inFlight.contradicts() else { throw error }
            }
            var again = Runner(invocation: invocation, context: context, today: today)
            again.attempt = SchemaAttempt(mayReadBeside: false)
            try await again.invocation.command.run(again)
        }
    }

    // MARK: - Wiring

    /// Opens the session a command works in: the configuration read once, the client made for it, the reader chosen
    /// (the face's copy when it keeps one) and the table's layout (see `Session.open` for `readingBeside` and
    /// `evenWithCopy`).
    func prepareBase(readingBeside: Bool = false, evenWithCopy: Bool = false) async throws -> Session {
        let configuration = try loadConfiguration()
        return try await Session.open(
            configuration, client: makeClient(configuration: configuration), in: surroundings(configuration),
            attempt: attempt, readingBeside: readingBeside, evenWithCopy: evenWithCopy)
    }

    /// Runs `operation` in a session of this run's: the layout it assumed confirmed before its outcome is handed back
    /// (`execute` runs the command once more, the schema first, when the schema contradicts it).
    /// `body` runs it when the command line takes its outcome as it comes (a write's batches, a listing's pages).
    func perform<O: Operation>(
        _ operation: O, _ body: ((Session) async throws -> O.Outcome)? = nil
    ) async throws -> O.Outcome {
        let opening = operation.opening
        let session = try await prepareBase(readingBeside: opening.readingBeside, evenWithCopy: opening.evenWithCopy)
        return try await SessionOpener.run(operation, in: session, body)
    }

    /// Runs work on the configuration itself (doctor, init) with what this run's sessions would stand on.
    /// `body` runs it when the face takes part (init's questions).
    func perform<O: SetupOperation>(
        _ operation: O, in setup: Setup? = nil, _ body: ((Setup) async throws -> O.Outcome)? = nil
    ) async throws -> O.Outcome {
        let setup = setup ?? self.setup
        if let body { return try await body(setup) }
        return try await operation.run(in: setup)
    }

    /// What this run's sessions stand on, for work that comes before one.
    var setup: Setup {
        var setup = Setup(
            configuration: { [self] in try loadConfiguration() },
            client: { [self] in makeClient(configuration: $0) }, surroundings: { [self] in surroundings($0) })
        (setup.environment, setup.currentDirectory) = (context.environment, context.currentDirectory)
        setup.profile = invocation.globals.profile
        setup.conceal = { [output] in output.conceal($0) }
        return setup
    }

    /// Opens sessions as this run does, for a face that runs operations itself (the board): each run of an operation
    /// with its own attempt, so it may run once more with the schema first.
    var sessionOpener: SessionOpener {
        SessionOpener { [self] opening, attempt in
            var run = self
            run.attempt = attempt
            return try await run.prepareBase(readingBeside: opening.readingBeside, evenWithCopy: opening.evenWithCopy)
        }
    }

    /// What every session of this run stands in: the day, the clocks, the caches, the engine, the face's copies.
    func surroundings(_ configuration: Configuration) -> SessionSurroundings {
        var surroundings = SessionSurroundings(
            today: today, timeZone: context.timeZone, now: context.now, network: context.network,
            cache: context.cacheDirectory, coordination: coordination(configuration), copies: context.copies)
        surroundings.state = context.stateDirectory
        surroundings.editor = editor
        surroundings.confirmsGuess = guessQuestion()
        surroundings.readNotes = { [self] in try readNotes($0, command: $1, flag: $2) }
        surroundings.confirmsDeleting = { [self] in try confirmDeleting($0, noun: $1, command: $2, verb: $3, from: $4) }
        return surroundings
    }

    /// On a terminal, the question a write asks about the one record whose name holds every word typed: true only for
    /// a yes. Nil off a terminal, where a guess is 66.
    private func guessQuestion() -> (@Sendable (_ noun: String, _ name: String) -> Bool)? {
        guard context.isStdinTerminal && output.isStderrTerminal else { return nil }
        let (output, context) = (output, context)
        return { noun, name in
            output.standardError("No \(noun) has that name. Did you mean \"\(TextCells.folded(name))\"? [y/N] ")
            let answer = context.readLine()?.trimmingWhitespace().lowercased()
            return answer == "y" || answer == "yes"
        }
    }

    /// A word's field, or a usage error naming the flag and the field this base lacks.
    func requireField(_ word: FieldMap.Word, for flag: String, in fields: FieldMap, command: String?) throws -> String {
        try fields.required(word, for: flag, command: command)
    }

    func loadConfiguration() throws -> Configuration {
        if let loaded = configuration.withLock({ $0 }) { return loaded }
        if let remembered = context.rememberedConfiguration?.withLock({ $0 }) {
            output.conceal(remembered.token)
            self.configuration.withLock { $0 = remembered }
            return remembered
        }
        let configuration = try ConfigurationLoader.load(
            secretsFlag: invocation.globals.secretsPath, profile: invocation.globals.profile,
            environment: context.environment,
            currentDirectory: context.currentDirectory, warn: { output.standardError("tracker: \($0)\n") }
        ).get()
        output.conceal(configuration.token)
        self.configuration.withLock { $0 = configuration }
        context.rememberedConfiguration?.withLock { $0 = configuration }
        return configuration
    }

    /// The directory shared with the user's other tracker processes; an unusable one is said once, on stderr.
    func sharedDirectory() -> RuntimeDirectory {
        runtimeDirectory.withLock { cached in
            if let cached { return cached }
            let directory = context.prepareRuntimeDirectory()
            if let warning = directory.warning { output.standardError("tracker: \(warning)\n") }
            cached = directory
            return directory
        }
    }

    /// The engine shared with other tracker processes for this configuration (the machine's, or the team's Redis).
    func coordination(_ configuration: Configuration) -> any Coordination {
        if let password = configuration.redis?.password { output.conceal(password) }
        return context.coordinate(configuration, sharedDirectory()) { [output] line in
            output.standardError("tracker: \(line)\n")
        }
    }

    func makeClient(configuration: Configuration) -> ProjectAPIClient {
        let timeout = invocation.globals.timeoutSeconds ?? configuration.timeoutSeconds
        var environment = context.network
        if invocation.globals.isVerbose {
            environment.log = { [output] line in output.standardError("tracker: \(line)\n") }
        }
        if output.isStderrTerminal {
            environment.notify = { [output] line in output.standardError("tracker: \(line)\n") }
        }
        if let status {
            environment.status = { text in
                if let text { status.show("tracker: " + text, isWait: true) } else { status.clear() }
            }
        }
        let network = NetworkHelper(
            transport: context.makeTransport(timeout), timeoutSeconds: timeout,
            policy: RetryPolicy(budgetSeconds: Double(configuration.retryBudgetSeconds)),
            pacer: context.makePacer?(configuration, sharedDirectory())
                ?? coordination(configuration).pacer(for: configuration.budgetOwner),
            rules: ProjectAPIClient.rules,
            environment: environment)
        return ProjectAPIClient(
            access: configuration.access, network: network, now: context.now, userAgent: "tracker/\(Version.current)")
    }
}
