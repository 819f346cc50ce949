import Foundation

/// Executes one parsed invocation against Airtable.
struct Runner {
    var invocation: Invocation
    var context: Context
    /// Read once, so a whole command (a long listing past midnight included) sees one date.
    let today: CalendarDate

    init(invocation: Invocation, context: Context) {
        self.invocation = invocation
        self.context = context
        self.today = CalendarDate(context.now(), in: context.timeZone)
    }

    var output: Output { context.output }
    private var style: Style {
        Style(
            isEnabled: invocation.globals.color.isEnabled(
                isTerminal: output.isStdoutTerminal, environment: context.environment))
    }

    func execute() async throws {
        switch invocation.command {
        case .help(let topic): try output.standardOutput(Help.page(for: topic))
        case .version: try output.standardOutput("tracker \(Version.current)\n")
        case .list(let options): try await list(options)
        case .add(let options): try await add(options)
        case .show(let options): try await show(options)
        case .completion(let shell): try output.standardOutput(Completion.script(for: shell))
        case .doctor: try await doctor()
        }
    }

    // MARK: - Commands

    private func list(_ options: ListOptions) async throws {
        let client = try makeClient()
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        var renderer = makeRenderer(format, today: today, style: style, width: output.terminalWidth ?? 80)
        var tally: [ProjectStatus: Int] = [:]
        let email = options.filters.leadEmail
        let query = ListQuery(
            filterByFormula: Formula.matching(options.filters, today: today),
            sort: options.sort.map { [($0.fieldName, options.descending ? .desc : .asc)] } ?? [],
            // A lead's email is matched here, not by Airtable, so the cap is applied here too.
            maxRecords: email == nil ? options.limit : nil)
        var remaining = options.limit ?? Int.max
        do {
            try await client.listProjects(query) { page in
                var page = page
                if let email { page = page.filter { $0.lead?.email?.lowercased() == email } }
                page = Array(page.prefix(remaining))
                remaining -= page.count
                for project in page { tally[project.status(today: today), default: 0] += 1 }
                let text = renderer.render(page: page)
                if !text.isEmpty { try output.standardOutput(text) }
                if remaining == 0 { throw ListingComplete() }
            }
        } catch is ListingComplete {}
        let closing = renderer.finish()
        if !closing.isEmpty { try output.standardOutput(closing) }
        if format == .table { output.standardError(Self.summary(tally)) }
    }

    /// Stops a listing early once `--limit` projects were shown.
    private struct ListingComplete: Error {}

    static func summary(_ tally: [ProjectStatus: Int]) -> String {
        let total = tally.values.reduce(0, +)
        guard total > 0 else { return "No projects.\n" }
        let parts = ProjectStatus.allCases.compactMap { status in tally[status].map { "\($0) \(status.rawValue)" } }
        return "\(total) project\(total == 1 ? "" : "s"): \(parts.joined(separator: ", "))\n"
    }

    private func add(_ options: AddOptions) async throws {
        var draft = options.draft
        draft.notes = try readNotes(options.notesSource)
        if options.dryRun {
            try output.standardOutput(ProjectAPIClient.createBody(draft).serialized() + "\n")
            return
        }
        let client = try makeClient()
        // Two runs of the same cron line must not both find the name absent and both create it.
        let lock =
            options.ifAbsent
            ? FileLock(name: FileLock.name(prefix: "add", [draft.name]), environment: context.environment) : nil
        defer { withExtendedLifetime(lock) {} }
        if options.ifAbsent, let existing = try await client.projects(named: draft.name).get().first {
            if output.isStdoutTerminal {
                output.standardError("Project \"\(draft.name)\" already exists (\(existing.id)); nothing to do.\n")
            }
            try printAdded(existing, options)
            return
        }
        let project = try await client.createProject(draft).get()
        if output.isStdoutTerminal && !options.quiet {
            output.standardError("Created \"\(draft.name)\", due \(draft.due) (\(draft.due.relative(to: today))).\n")
        }
        try printAdded(project, options)
    }

    private func printAdded(_ project: Project, _ options: AddOptions) throws {
        if options.quiet { return }
        try output.standardOutput(options.json ? project.json(today: today).serialized() + "\n" : project.id + "\n")
    }

    private func readNotes(_ source: NotesSource?) throws -> String? {
        switch source {
        case nil: return nil
        case .text(let text): return text
        case .standardInput: return String(decoding: context.readStandardInput(), as: UTF8.self)
        case .file(let path):
            let resolved = path.hasPrefix("/") ? path : context.currentDirectory + "/" + path
            guard let data = FileManager.default.contents(atPath: resolved) else {
                let reason = FileManager.default.fileExists(atPath: resolved) ? "cannot be read" : "does not exist"
                throw AppError.file("--notes-file \(path) \(reason)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw AppError.usage("--notes-file \(path) is not UTF-8 text", command: "add")
            }
            return text
        }
    }

    private func show(_ options: ShowOptions) async throws {
        let client = try makeClient()
        let project: Project
        if options.isRecordID {
            project = try await client.project(id: options.target).get()
        } else {
            let matches = try await client.projects(named: options.target).get()
            guard let first = matches.first else {
                let close = try await closeNames(to: options.target, client: client)
                let hint =
                    close.isEmpty
                    ? "Run 'tracker list' to see names and ids."
                    : "Did you mean " + close.map { "\"\($0)\"" }.joined(separator: " or ") + "?"
                throw AppError.notFound("no project is named \"\(options.target)\"", hint: hint)
            }
            guard matches.count == 1 else {
                throw AppError.ambiguous(
                    name: options.target, candidates: matches.map { "\($0.id) (due \($0.due?.description ?? "none"))" })
            }
            project = first
        }
        if options.json {
            try output.standardOutput(project.json(today: today).serialized() + "\n")
        } else {
            let width = output.isStdoutTerminal ? output.terminalWidth : nil
            try output.standardOutput(ProjectView(today: today, style: style, width: width).render(project))
        }
    }

    /// Up to three project names near `name`: same words in another case, a containing name, or a small typo.
    private func closeNames(to name: String, client: ProjectAPIClient) async throws -> [String] {
        let wanted = name.lowercased()
        var scored: [(String, Int)] = []
        try await client.listProjects(ListQuery()) { page in
            for candidate in page.compactMap(\.name) {
                let lowered = candidate.lowercased()
                let distance = Suggestion.distance(wanted, lowered)
                if lowered == wanted || lowered.contains(wanted) || wanted.contains(lowered) {
                    scored.append((candidate, 0))
                } else if distance <= max(2, wanted.count / 4) {
                    scored.append((candidate, distance))
                }
            }
        }
        return scored.sorted { $0.1 < $1.1 }.prefix(3).map(\.0)
    }

    // MARK: - Wiring

    func makeClient() throws -> ProjectAPIClient {
        try makeClient(configuration: loadConfiguration())
    }

    func loadConfiguration() throws -> Configuration {
        try ConfigurationLoader.load(
            secretsFlag: invocation.globals.secretsPath, environment: context.environment,
            currentDirectory: context.currentDirectory, warn: { output.standardError("tracker: \($0)\n") }
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
        let network = NetworkHelper(
            session: context.makeSession(timeout), timeoutSeconds: timeout,
            policy: RetryPolicy(budgetSeconds: Double(configuration.retryBudgetSeconds)),
            pacer: context.makePacer(configuration), environment: environment)
        return ProjectAPIClient(configuration: configuration, network: network, now: context.now)
    }
}
