import Foundation

extension Runner {
    /// `tracker add`: creates one project and prints its id; with `--if-absent`, only when no project has the name.
    func add(_ options: AddOptions) async throws {
        var draft = options.draft
        draft.notes = try readNotes(options.notesSource, command: "add")
        let configuration = try loadConfiguration()
        let client = makeClient(configuration: configuration)
        if options.dryRun {
            try output.standardOutput(client.createBody(draft).serialized() + "\n")
            return
        }
        // Two runs of the same cron line must not both find the name absent and both create it.
        var lock: FileLock?
        if options.ifAbsent {
            lock = try await FileLock.acquire(
                FileLock.lockName(forAdding: draft.name, baseID: configuration.baseID, table: configuration.table),
                in: sharedDirectory(), waitingAtMost: Double(configuration.retryBudgetSeconds),
                doing: "adding \"\(draft.name)\"", now: context.network.now, sleep: context.network.sleep
            ).get()
        }
        defer { withExtendedLifetime(lock) {} }
        if options.ifAbsent, let existing = try await client.projects(named: draft.name).get().first {
            if output.isStderrTerminal && !options.quiet {
                output.standardError("Project \"\(draft.name)\" already exists (\(existing.id)); nothing to do.\n")
            }
            try printAdded(existing, options)
            return
        }
        let project = try await client.createProject(draft).get()
        if output.isStderrTerminal && !options.quiet {
            output.standardError("Created \"\(draft.name)\", due \(draft.due) (\(draft.due.relative(to: today))).\n")
        }
        try printAdded(project, options)
    }

    private func printAdded(_ project: Project, _ options: AddOptions) throws {
        if options.quiet { return }
        try output.standardOutput(options.json ? project.json(today: today).serialized() + "\n" : project.id + "\n")
    }
}
