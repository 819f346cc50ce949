import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker task delete TASK...`: shows what it deletes and asks on a terminal; needs `--yes` off one.
struct TaskDelete: Equatable, Sendable {
    static let flags = ["--project", "--yes", "--dry-run", "--json", "--quiet"]

    var tasks: [String]
    var project: String?
    var confirmed = false
    var mode = WriteMode()

    init(_ scanned: ScannedArguments) throws {
        guard !scanned.positionals.isEmpty else {
            throw AppError.usage("task delete needs at least one task: tracker task delete TASK...", command: "task")
        }
        tasks = scanned.positionals
        project = try scanned.nonEmpty("--project")
        confirmed = scanned.has("--yes")
        mode = try scanned.writeMode()
    }

    func run(_ runner: Runner) async throws { try await runner.deleteTasks(self) }
}

extension Runner {
    fileprivate func deleteTasks(_ options: TaskDelete) async throws {
        let base = try await prepareBase()
        let layout = try base.taskLayout()
        // Every task is found before anything is deleted.
        let found = try await base.taskNaming(layout, project: options.project).resolve(all: options.tasks)
        let ids = found.map(\.id)
        if options.mode.dryRun { return try printPlanned(base.client.plannedTaskDeletes(ids, in: layout.client)) }
        if !options.confirmed {
            try confirmDeleting(
                found.map { "\($0.id)  \(TextCells.folded($0.name ?? "(no name)"))" }, noun: "task",
                command: "task delete")
        }
        var deleted: [String] = []
        try await base.client.deleteTasks(ids, in: layout.client) { deleted += $0 }
        if !options.mode.quiet { try output.standardOutput(deleted.map { $0 + "\n" }.joined()) }
        narrate("Deleted \(deleted.count) task\(deleted.count == 1 ? "" : "s").", options.mode)
    }
}
