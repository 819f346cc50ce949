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
    /// Whether a command that reads may send its work beside the schema read when nothing is remembered; off for the
    /// second run of a command whose first the schema contradicted.
    var mayReadBesideSchema = true
    /// The schema read in flight for this run, if the command sent its work beside it.
    private let inFlight = Locked<SchemaInFlight?>(nil)
    /// What tracker is waiting for, on a terminal's stderr; nil elsewhere.
    let status: StatusLine?
    /// The context's streams, clearing the status line before each write.
    let output: Output

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
        } catch let error where mayReadBesideSchema {
            // Nothing was written before the schema was confirmed: run again, the schema first, when it says the
            // work went out with the wrong fields (or failed for that reason).
            guard let inFlight = inFlight.withLock({ $0 }) else { throw error }
            if !(error is SchemaInFlight.Contradicted) {
                guard await inFlight.contradicts() else { throw error }
            }
            var again = Runner(invocation: invocation, context: context, today: today)
            again.mayReadBesideSchema = false
            try await again.invocation.command.run(again)
        }
    }

    // MARK: - Wiring

    /// What a command that reads or writes projects works with.
    struct Base {
        var configuration: Configuration
        /// A client that reads and writes the fields as this base has them.
        var client: ProjectAPIClient
        var knowledge: BaseKnowledge
        var layout: TableLayout
        /// The schema read going out beside the work, when the layout above is only assumed.
        var inFlight: SchemaInFlight? = nil

        /// The layout confirmed by the schema read in flight, or the one in use: call before writing anything out.
        func confirmedLayout() async throws -> TableLayout { try await inFlight?.confirmed() ?? layout }
    }

    /// Reads the configuration and the table's layout (the remembered schema, or the schema read now).
    ///
    /// With `readingBeside`, a command that only reads and confirms before writing anything out does not wait for a
    /// schema that is not remembered: the layout is the one the secrets file assumes, and the schema read goes out
    /// beside the command's first request (`base.inFlight`).
    ///
    /// A face that keeps a copy reads the schema first (the copy needs the layout confirmed) unless `evenWithCopy`: the
    /// board's cold first screen, which is read without the copy.
    func prepareBase(readingBeside: Bool = false, evenWithCopy: Bool = false) async throws -> Base {
        let configuration = try loadConfiguration()
        let client = makeClient(configuration: configuration)
        let knowledge = BaseKnowledge(client: client, cache: context.cacheDirectory, now: context.now)
        if readingBeside && mayReadBesideSchema && !knowledge.remembersFreshSchema
            && (context.copies == nil || evenWithCopy)
        {
            let assumed = client.access.fieldSettings.assumed
            let inFlight = SchemaInFlight(assumed: assumed) { try await knowledge.layout() }
            self.inFlight.withLock { $0 = inFlight }
            return Base(
                configuration: configuration, client: client.using(assumed), knowledge: knowledge,
                layout: TableLayout(
                    fields: assumed, table: nil, schema: nil,
                    tasks: try? TaskLayout.resolve(client.access.tasks, projects: nil, schema: nil)),
                inFlight: inFlight)
        }
        let layout = try await knowledge.layout()
        return attachingCopy(
            Base(
                configuration: configuration, client: client.using(layout.fields), knowledge: knowledge, layout: layout)
        )
    }

    /// Checks values against `base` as the command last saw it.
    func valueChecker(_ base: Base, command: String) async throws -> ValueChecker {
        // With the schema read in flight, the assumed layout stands until a value needs the schema: what it could have
        // refused, Airtable refuses (no typecast), and the command then runs again with the schema.
        let layout = base.inFlight == nil ? try await base.knowledge.layout() : base.layout
        return ValueChecker(
            client: base.client.using(layout.fields), knowledge: base.knowledge, layout: layout, command: command,
            today: today, timeZone: context.timeZone)
    }

    /// From here on a failure is reported, never answered by running the command again with the schema: for a write
    /// that must not happen twice (a create), once it may have been sent.
    func neverRunAgain() { inFlight.withLock { $0 = nil } }

    /// Waits for a schema read still in flight after a write, so it is remembered for the next command; once Airtable
    /// has accepted the write, what the schema says no longer changes it.
    func settle(_ base: Base) async { _ = try? await base.confirmedLayout() }

    /// Runs `body`; when Airtable's answer contradicts what tracker remembered about the base (a field, a choice, a
    /// linked record or a view it no longer has), the schema is read again and `recheck` checks the values once more,
    /// so a stale memory is reported as the value that is wrong, not as Airtable's refusal.
    func recheckingOnContradiction<T>(
        _ base: Base, recheck: (Base) async throws -> Void, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let error as AppError
            where Self.contradictsMemory(error) && (base.inFlight != nil || !base.knowledge.isCurrent)
        {
            // Cold, the schema read beside the write says what was assumed wrongly; else it is read again.
            let fresh =
                base.inFlight != nil ? try? await base.knowledge.layout() : try await base.knowledge.refreshed()
            guard let fresh else { throw error }
            var updated = base
            updated.layout = fresh
            updated.inFlight = nil
            updated.client = base.client.using(fresh.fields)
            try await recheck(updated)
            throw error
        }
    }

    /// A word's field, or a usage error naming the flag and the field this base lacks.
    static func requireField(_ word: FieldMap.Word, for flag: String, in fields: FieldMap, command: String?) throws
        -> String
    {
        try fields.required(word, for: flag, command: command)
    }

    func requireField(_ word: FieldMap.Word, for flag: String, in fields: FieldMap, command: String?) throws -> String {
        try Self.requireField(word, for: flag, in: fields, command: command)
    }

    /// Answers that mean the base changed since its schema was read: those docs/contract.md names, and a field that has
    /// become computed since (recorded: `Field "X" cannot accept a value because the field is computed`).
    static func contradictsMemory(_ error: AppError) -> Bool {
        switch error {
        case .missingField: return true
        case .http(422, let body):
            if body.type == "INVALID_VALUE_FOR_COLUMN", body.message?.contains("because the field is computed") == true
            {
                return true
            }
            return [
                "UNKNOWN_FIELD_NAME", "INVALID_MULTIPLE_CHOICE_OPTIONS", "ROW_DOES_NOT_EXIST", "VIEW_NAME_NOT_FOUND",
            ]
            .contains(body.type ?? "")
        default: return false
        }
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

    /// Holds what `parts` name for `command` in this table of this base against every other tracker process (of the
    /// machine, or of the team when `"redis"` is set; `machineOnly` for what guards this machine's own files),
    /// waiting at most the retry budget, until the returned lock is released; other names and tables go on at once.
    /// Nil when there is nowhere to hold it.
    func lock(
        _ parts: [String], for command: String, in base: Base, doing what: String, machineOnly: Bool = false
    ) async throws -> (any HeldLock)? {
        let configuration = base.configuration
        let shared = coordination(configuration)
        let engine: any Coordination = machineOnly ? shared.thisMachine : shared
        // A lock that guards a write names the table by its id once the schema told it: machines configured with the
        // table's name and with its id (`tbl…`) take the same lock. A machine's own lock (`changes`' snapshot) names
        // what its snapshot does, and waits for no schema.
        let table =
            machineOnly ? configuration.table : try await base.confirmedLayout().table?.id ?? configuration.table
        return try await engine.lock(
            [command, table] + parts, for: configuration.budgetOwner,
            waitingAtMost: Double(configuration.retryBudgetSeconds), doing: what,
            now: context.network.now, sleep: context.network.sleep
        ).get()
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
