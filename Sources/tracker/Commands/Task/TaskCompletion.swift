import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker task done|reopen TASK...`: sets Completed (or the mapped select) on every task named, found first, ten
/// tasks a request; prints the ids. A task already in that state is printed, not written.
struct TaskCompletion: Equatable, Sendable {
    static let flags = ["--project", "--dry-run", "--json", "--quiet"]

    var tasks: [String]
    var complete: Bool
    var project: String?
    var mode = WriteMode()

    init(_ scanned: ScannedArguments, complete: Bool) throws {
        let verb = complete ? "done" : "reopen"
        guard !scanned.positionals.isEmpty else {
            throw AppError.usage("task \(verb) needs at least one task: tracker task \(verb) TASK...", command: "task")
        }
        tasks = scanned.positionals
        self.complete = complete
        project = try scanned.nonEmpty("--project")
        mode = try scanned.writeMode()
    }

    func run(_ runner: Runner) async throws { try await runner.setTasksComplete(self) }
}

extension Runner {
    fileprivate func setTasksComplete(_ options: TaskCompletion) async throws {
        let base = try await prepareBase()
        let layout = try base.taskLayout()
        guard let completion = layout.fields.completion else {
            throw AppError.usage(
                "task \(options.complete ? "done" : "reopen") needs a completion field in \"\(layout.name)\", and it has none; map one in \"tasks\".\"fields\": \"complete\"",
                command: "task")
        }
        // Every task is found before anything is written.
        let found = try await base.taskNaming(layout, project: options.project).resolve(all: options.tasks)
        let value = completion.value(complete: options.complete)
        let changes = found.filter { $0.isComplete != options.complete }.map {
            TaskChange(id: $0.id, write: TaskWrite([(.complete, value)]))
        }
        let table = layout.client
        if options.mode.dryRun { return try printPlanned(base.client.plannedTaskUpdates(changes, in: table)) }
        var written: [String: ProjectTask] = [:]
        try await base.client.updateTasks(changes, in: table) { tasks in
            for task in tasks { written[task.id] = task }
        }
        let tasks = found.map { written[$0.id] ?? $0 }
        if options.mode.quiet { return }
        if options.mode.json {
            let rows = try await base.taskRows(tasks)
            return try output.standardOutput("[\n" + tasks.map(rows.json).joined(separator: ",\n") + "\n]\n")
        }
        try output.standardOutput(tasks.map { $0.id + "\n" }.joined())
    }
}
