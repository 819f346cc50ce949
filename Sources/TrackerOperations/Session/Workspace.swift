#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerTeam
import TrackerModel

/// What a face's sessions stand on, made once by the face (the command line for each command; `mcp`, `serve` and the
/// board for their lives; the operation tests for each test): the configuration, read once; how a client is made; the
/// engine shared with other tracker processes; the face's copies. And the one way to open a session from them, with the
/// schema-first retry written once (`SessionOpener`). What changes from call to call (the day, who asks) comes with
/// each session as its `Scope`, never by making another workspace.
package final class Workspace: Sendable {
    /// What one call brings to the sessions it opens.
    package struct Scope: Sendable {
        /// The day the call runs on; nil: the workspace's.
        package var today: CalendarDate?
        /// Who asks, when not the configuration's own token (`serve`: the bearer's personal access token): the
        /// sessions read and write as that person, while the face's copies keep themselves up to date with its own.
        package var personToken: String?
        /// What a cancellation of the call cleans up (a file half downloaded); nil: the face's own.
        package var interruption: Interruption?

        /// Airtable's id of the person who asks (serve's signed-in person), for the journal.
        package var userID: String? = nil
        /// The assistant's client (serve's signed-in client, an `mcp` client's name), for the journal.
        package var client: String? = nil
        /// The tool that asks, which the journal names in place of the operation.
        package var tool: String? = nil
        /// An assistant's write call: what the approval policy holds is planned here, not sent.
        package var planned: PlannedWrites? = nil

        package init(today: CalendarDate? = nil, personToken: String? = nil, interruption: Interruption? = nil) {
            (self.today, self.personToken, self.interruption) = (today, personToken, interruption)
        }
    }

    /// What the face gives its workspace: where the configuration is read from, its clocks, its transport and engine,
    /// and how it speaks (a line on its stderr, a secret it must never show).
    package struct Surface: Sendable {
        /// The environment the configuration is read from.
        package var environment: [String: String]
        /// What a relative path the person gave is relative to.
        package var currentDirectory: String
        /// `--secrets PATH`, over every other place the secrets file may be.
        package var secretsPath: String? = nil
        /// `--profile NAME`.
        package var profile: String? = nil
        /// `--timeout SECONDS`, over the configuration's.
        package var timeoutSeconds: Int? = nil
        /// `--max-age SECONDS`, over the configuration's `"maxAge"`.
        package var maxAge: Double? = nil
        /// Whether the command only reads, and may answer from the team's copy when it is fresh enough.
        package var readsFromTeamCopy = false
        /// The day every session of this workspace sees, read once.
        package var today: CalendarDate
        package var timeZone: Zone
        /// The wall clock, for creation times and how old a remembered schema is.
        package var now: @Sendable () -> Date
        /// Clock, sleep and randomness for retries, and the face's lines while it waits (`--verbose`, a status line).
        package var network: NetworkHelper.Environment
        /// How requests travel: libcurl on Linux, URLSession on macOS, a stub in tests.
        package var makeTransport: @Sendable (_ timeoutSeconds: Int) -> any HTTPTransport
        /// The directory shared with other tracker processes; prepared only when a session needs it.
        package var prepareRuntimeDirectory: @Sendable () -> RuntimeDirectory
        /// A pacer of the test's own in place of the engine's; nil paces through `coordinate`.
        package var makePacer: (@Sendable (Configuration, RuntimeDirectory) -> any RequestPacer)? = nil
        /// The engine that shares the base's budget and the write locks, chosen from the configuration.
        package var coordinate:
            @Sendable (Configuration, RuntimeDirectory, _ warn: @escaping @Sendable (String) -> Void) ->
                any Coordination
        /// Where the schema and resolved names are remembered between commands; nil remembers nothing.
        package var cache: CacheDirectory? = nil
        /// Where `changes` keeps what it saw last; nil where there is nowhere.
        package var state: CacheDirectory? = nil
        /// The configuration an earlier workspace of this process read, kept for the next (a server's many calls run
        /// the token command once); nil reads it once for this workspace.
        package var rememberedConfiguration: Locked<Configuration?>? = nil
        /// The tables a face that stays keeps between its calls; nil for a one-shot command.
        package var copies: BaseCopies? = nil
        /// What tracker calls itself in each request's User-Agent.
        package var userAgent: String
        /// The face, as the journal names it: `cli`, `board`, `mcp`, `serve`.
        package var face = "cli"
        /// Whether writes are journaled: every face's are; only the unit tests that script each request of a stub
        /// turn it off (the journal's own unit tests keep it on).
        package var journals = true
        /// Says a line of tracker's (a warning) where the face says such things.
        package var warn: @Sendable (_ line: String) -> Void = { _ in }
        /// Tells the face a secret it must never show, before anything could say it.
        package var conceal: @Sendable (_ secret: String) -> Void = { _ in }
        /// Starts loading the transport on a thread of its own, for a session that learns late it will send (the
        /// team's poller); the first request loads it otherwise.
        package var prepareNetwork: @Sendable () -> Void = {}

        /// Each value without a default given.
        package init(
            environment: [String: String], currentDirectory: String, today: CalendarDate, timeZone: Zone,
            now: @escaping @Sendable () -> Date, network: NetworkHelper.Environment,
            makeTransport: @escaping @Sendable (Int) -> any HTTPTransport,
            prepareRuntimeDirectory: @escaping @Sendable () -> RuntimeDirectory,
            coordinate:
                @escaping @Sendable (Configuration, RuntimeDirectory, @escaping @Sendable (String) -> Void) ->
                any Coordination,
            userAgent: String
        ) {
            (self.environment, self.currentDirectory, self.today, self.timeZone) =
                (environment, currentDirectory, today, timeZone)
            (self.now, self.network, self.makeTransport) = (now, network, makeTransport)
            (self.prepareRuntimeDirectory, self.coordinate, self.userAgent) =
                (prepareRuntimeDirectory, coordinate, userAgent)
        }
    }

    package let surface: Surface
    /// The configuration, read at most once: a token command runs once however often it is needed.
    private let configuration = Locked<Configuration?>(nil)
    /// The token this workspace last told the face to conceal.
    private let toldToken = Locked<String?>(nil)
    /// The runtime directory, prepared at most once.
    private let runtimeDirectory = Locked<RuntimeDirectory?>(nil)

    package init(_ surface: Surface) { self.surface = surface }

    /// The configuration, as every command reads it; read once (where the face remembers it, until the face forgets it:
    /// `serve`'s SIGHUP), its secrets told to the face first.
    package func loadConfiguration() throws -> Configuration {
        let memory = surface.rememberedConfiguration ?? configuration
        let loaded: Configuration
        if let remembered = memory.withLock({ $0 }) {
            loaded = remembered
        } else {
            loaded = try ConfigurationLoader.load(
                secretsFlag: surface.secretsPath, profile: surface.profile, environment: surface.environment,
                currentDirectory: surface.currentDirectory, warn: surface.warn
            ).get()
            memory.withLock { $0 = loaded }
        }
        // Told once a token, before it is handed out: read by another workspace, or again after a SIGHUP, it is told.
        let untold = toldToken.withLock { told in
            defer { told = loaded.token }
            return told != loaded.token
        }
        if untold { surface.conceal(loaded.token) }
        return loaded
    }

    /// The configuration a call's sessions speak with: the face's, with the token of the person who asks.
    package func configuration(for scope: Scope) throws -> Configuration {
        var configuration = try loadConfiguration()
        if let person = scope.personToken {
            surface.conceal(person)
            configuration.token = person
        }
        return configuration
    }

    /// The directory shared with the user's other tracker processes; an unusable one is said once.
    package func sharedDirectory() -> RuntimeDirectory {
        runtimeDirectory.withLock { cached in
            if let cached { return cached }
            let directory = surface.prepareRuntimeDirectory()
            if let warning = directory.warning { surface.warn(warning) }
            cached = directory
            return directory
        }
    }

    /// The engine shared with other tracker processes for `configuration` (the machine's, or the team's Redis).
    package func coordination(_ configuration: Configuration) -> any Coordination {
        if let password = configuration.redis?.password { surface.conceal(password) }
        return surface.coordinate(configuration, sharedDirectory(), surface.warn)
    }

    /// A client for `configuration`, paced by the engine and timed as the face asked.
    package func makeClient(configuration: Configuration) -> ProjectAPIClient {
        let timeout = surface.timeoutSeconds ?? configuration.timeoutSeconds
        let engine = coordination(configuration)
        let network = NetworkHelper(
            transport: surface.makeTransport(timeout), timeoutSeconds: timeout,
            policy: RetryPolicy(budgetSeconds: Double(configuration.retryBudgetSeconds)),
            pacer: surface.makePacer?(configuration, sharedDirectory()) ?? engine.pacer(for: configuration.budgetOwner),
            rules: ProjectAPIClient.rules, environment: surface.network,
            usage: usageLedger(configuration, engine: engine))
        return ProjectAPIClient(
            access: configuration.access, network: network, now: surface.now, userAgent: surface.userAgent)
    }

    /// Where `configuration`'s requests are counted for the month: beside the base's per-second budget.
    package func usageLedger(_ configuration: Configuration, engine: (any Coordination)? = nil) -> any UsageLedger {
        let now = surface.now
        return (engine ?? coordination(configuration)).usage(
            for: configuration.budgetOwner, wallClock: { now().timeIntervalSince1970 })
    }

    /// What every session of this workspace stands in: the day, the clocks, the caches, the engine, the copies. What
    /// a person can be asked is the face's to add (`adjust`).
    package func surroundings(
        _ configuration: Configuration, scope: Scope = Scope(), adjust: (inout SessionSurroundings) -> Void = { _ in }
    ) -> SessionSurroundings {
        var surroundings = SessionSurroundings(
            today: scope.today ?? surface.today, timeZone: surface.timeZone, now: surface.now, network: surface.network,
            cache: surface.cache, coordination: coordination(configuration), copies: surface.copies)
        surroundings.state = surface.state
        surroundings.warn = surface.warn
        if surface.journals {
            surroundings.journal = journal(configuration, scope: scope, engine: surroundings.coordination)
        }
        surroundings.prepareNetwork = surface.prepareNetwork
        // The face's own token stays the copies'; the sessions speak as the person who asks.
        if scope.personToken != nil { surroundings.copyToken = try? loadConfiguration().token }
        if surface.readsFromTeamCopy, surface.copies == nil {
            surroundings.maxAge = surface.maxAge ?? configuration.maxAge
        }
        adjust(&surroundings)
        return surroundings
    }

    /// Where `configuration`'s writes are journaled, and who writes: the team's Redis when there is one (this
    /// machine's state directory while it cannot be reached), else the state directory.
    package func journal(_ configuration: Configuration, scope: Scope = Scope(), engine: any Coordination) -> Journaling
    {
        let now = surface.now
        let clock: @Sendable () -> Double = { now().timeIntervalSince1970 }
        let file = surface.state.map {
            FileJournal(
                directory: $0.path + "/journal", name: TeamCoordination.Keys.base(configuration.baseID), now: clock)
        }
        var store: (any JournalStore)? = file
        if let team = engine as? TeamCoordination {
            store = RedisJournal(
                connection: team.connection, baseID: configuration.baseID, redis: team.connection.address.display,
                now: clock, fallback: file, warn: surface.warn)
        }
        var journaling = Journaling(store: store, now: clock)
        journaling.bestEffort = configuration.journalBestEffort
        journaling.face = surface.face
        journaling.tokenPrint = Journaling.fingerprint(configuration.token)
        (journaling.user, journaling.client, journaling.command) = (scope.userID, scope.client, scope.tool)
        journaling.warn = surface.warn
        journaling.approvals = configuration.approvals ?? (surface.face == "serve" ? .serve : .stdio)
        journaling.planned = scope.planned
        return journaling
    }

    /// Opens a session as `opening` asks (see `Session.open`), for one run of an operation; `adjust` adds what the
    /// face can ask of a person.
    package func session(
        _ opening: SessionOpening, attempt: SchemaAttempt, scope: Scope = Scope(),
        adjust: @Sendable (inout SessionSurroundings) -> Void = { _ in }
    ) async throws -> Session {
        let configuration = try configuration(for: scope)
        return try await Session.open(
            configuration, client: makeClient(configuration: configuration),
            in: surroundings(configuration, scope: scope, adjust: adjust), attempt: attempt,
            readingBeside: opening.readingBeside, evenWithCopy: opening.evenWithCopy)
    }

    /// Opens sessions for operations, each run with its own attempt (so it may run once more with the schema first),
    /// for one call's `scope`.
    package func opener(
        scope: Scope = Scope(), adjust: @escaping @Sendable (inout SessionSurroundings) -> Void = { _ in }
    ) -> SessionOpener {
        SessionOpener { [self] opening, attempt in
            try await session(opening, attempt: attempt, scope: scope, adjust: adjust)
        }
    }

    /// What this workspace's sessions stand on, for work that comes before one (doctor, init).
    package func setup(adjust: @escaping @Sendable (inout SessionSurroundings) -> Void = { _ in }) -> Setup {
        var setup = Setup(
            configuration: { [self] in try loadConfiguration() }, client: { [self] in makeClient(configuration: $0) },
            surroundings: { [self] in surroundings($0, adjust: adjust) })
        (setup.environment, setup.currentDirectory) = (surface.environment, surface.currentDirectory)
        setup.profile = surface.profile
        setup.conceal = surface.conceal
        return setup
    }
}
