import TrackerAPI
import TrackerModel

/// `tracker task done|reopen TASK...`: sets Completed (or the mapped select) on every task named, found first, ten
/// tasks a request; hands back every task named (the face prints their ids). A task already in that state is handed
/// back, not written.
package struct TaskCompletion: Operation, Equatable {
    package static let flags = ["--project", "--dry-run", "--json", "--quiet"]

    package var tasks: [String]
    package var complete: Bool
    package var project: String?
    package var mode = WriteMode()

    /// Each value given.
    package init(tasks: [String], complete: Bool, project: String? = nil, mode: WriteMode = WriteMode()) {
        self.tasks = tasks
        self.complete = complete
        self.project = project
        self.mode = mode
    }

    package init(_ scanned: ScannedArguments, complete: Bool) throws {
        let verb = complete ? "done" : "reopen"
        guard !scanned.positionals.isEmpty else {
            throw AppError.usage("task \(verb) needs at least one task: tracker task \(verb) TASK...", command: "task")
        }
        tasks = scanned.positionals
        self.complete = complete
        project = try scanned.nonEmpty("--project")
        mode = try scanned.writeMode()
    }

    package var opening: SessionOpening { .schemaFirst }
    package var journalName: String { complete ? "task done" : "task reopen" }

    /// Finds every task before anything is written, then writes those not already in that state.
    package func run(in session: Session) async throws -> TasksWritten {
        let layout = try session.taskLayout()
        guard let completion = layout.fields.completion else {
            throw AppError.usage(
                "task \(complete ? "done" : "reopen") needs a completion field in \"\(layout.name)\", and it has none; map one in \"tasks\".\"fields\": \"complete\"",
                command: "task")
        }
        let found = try await session.taskNaming(layout, project: project).resolve(all: tasks)
        let value = completion.value(complete: complete)
        let changes = found.filter { $0.isComplete != complete }.map {
            TaskChange(id: $0.id, write: TaskWrite([(.complete, value)]))
        }
        let table = layout.client
        if mode.dryRun { return .planned(session.client.plannedTaskUpdates(changes, in: table)) }
        var written: [String: ProjectTask] = [:]
        // A write: through the session, so a schema read that contradicts the layout afterwards never sends it again.
        try await session.sending { writes in
            try await writes.updateTasks(changes, in: table, known: found) { tasks in
                for task in tasks { written[task.id] = task }
            }
        }
        let tasks = found.map { written[$0.id] ?? $0 }
        // What JSON shows of each task's project is read only when asked for.
        return .written(tasks, rows: mode.json ? try await session.taskRows(tasks) : nil)
    }
}

/// What a write of tasks came to: the requests a dry run would send, or the tasks as they now are (with their projects,
/// when asked for).
package enum TasksWritten: Sendable {
    case planned([PlannedRequest])
    case written([ProjectTask], rows: TaskRows?)
}
