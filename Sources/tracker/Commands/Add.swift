import Foundation
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

extension Runner {
    /// `tracker add`: creates one project and prints its id; with `--if-absent`, only when no project has the name.
    func add(_ options: AddOptions) async throws {
        let base = try await prepareBase()
        let notes = try readNotes(options.input.notes, command: "add")
        func check(_ base: Base) async throws -> ProjectWrite {
            if base.layout.fields[.due] != nil && options.input.due == nil {
                throw AppError.usage("add needs --due DATE", command: "add")
            }
            return try await valueChecker(base, command: "add").write(for: options.input, notes: notes)
        }
        let write = try await check(base)
        let client = base.client
        if options.mode.dryRun {
            try output.standardOutput(client.plannedCreate(write).body!.serialized() + "\n")
            return
        }
        let name = options.name
        let due = options.input.due
        // Two runs of the same cron line must not both find the name absent and both create it.
        var lock: FileLock?
        if options.ifAbsent {
            // One lock per name in this table of this base: other names and tables go on at once.
            lock = try await FileLock.acquire(
                FileLock.name(prefix: "add", [base.configuration.baseID, base.configuration.table, name]),
                in: sharedDirectory(), waitingAtMost: Double(base.configuration.retryBudgetSeconds),
                doing: "adding \"\(name)\"", now: context.network.now, sleep: context.network.sleep
            ).get()
        }
        defer { withExtendedLifetime(lock) {} }
        if options.ifAbsent, let existing = try await client.projects(named: name).get().first {
            narrate("Project \"\(name)\" already exists (\(existing.id)); nothing to do.", options.mode)
            try printWritten(existing, options.mode)
            return
        }
        let project = try await recheckingOnContradiction(base, recheck: { _ = try await check($0) }) {
            try await client.createProject(write, name: name, due: due).get()
        }
        let when = due.map { ", due \($0) (\($0.relative(to: today)))" } ?? ""
        narrate("Created \"\(name)\"\(when).", options.mode)
        try printWritten(project, options.mode)
    }

    /// One line for a person at a terminal, on stderr; nothing in scripts, cron, or with `-q`.
    func narrate(_ text: String, _ mode: WriteMode) {
        if output.isStderrTerminal && !mode.quiet { output.standardError(TextCells.folded(text) + "\n") }
    }

    /// The one project a command wrote: its id, its JSON object, or nothing.
    func printWritten(_ project: Project, _ mode: WriteMode) throws {
        if mode.quiet { return }
        try output.standardOutput(mode.json ? project.jsonText(today: today) + "\n" : project.id + "\n")
    }
}
