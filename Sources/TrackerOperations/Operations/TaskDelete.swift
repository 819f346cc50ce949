import TrackerAPI
import TrackerModel

/// `tracker task delete TASK...`: shows what it deletes and asks on a terminal; needs `--yes` off one.
package struct TaskDelete: Operation, Equatable {
    package static let flags = ["--project", "--yes", "--dry-run", "--json", "--quiet"]

    package var tasks: [String]
    package var project: String?
    package var confirmed = false
    package var mode = WriteMode()

    package init(_ scanned: ScannedArguments) throws {
        guard !scanned.positionals.isEmpty else {
            throw AppError.usage("task delete needs at least one task: tracker task delete TASK...", command: "task")
        }
        tasks = scanned.positionals
        project = try scanned.nonEmpty("--project")
        confirmed = scanned.has("--yes")
        mode = try scanned.writeMode()
    }

    package var opening: SessionOpening { .schemaFirst }

    /// Finds every task before anything is deleted, asks where the face can (else needs `--yes`), then deletes them:
    /// the ids Airtable says it deleted.
    package func run(in session: Session) async throws -> TasksDeleted {
        let layout = try session.taskLayout()
        let found = try await session.taskNaming(layout, project: project).resolve(all: tasks)
        let ids = found.map(\.id)
        if mode.dryRun { return .planned(session.client.plannedTaskDeletes(ids, in: layout.client)) }
        if !confirmed {
            try session.confirmDeleting(
                found.map { "\($0.id)  \(TextCells.folded($0.name ?? "(no name)"))" }, noun: "task",
                command: "task delete")
        }
        var deleted: [String] = []
        try await session.sending { try await $0.deleteTasks(ids, in: layout.client, known: found) { deleted += $0 } }
        return .deleted(deleted)
    }
}

/// What `task delete` came to: the requests a dry run would send, or the ids deleted.
package enum TasksDeleted: Equatable, Sendable {
    case planned([PlannedRequest])
    case deleted([String])
}
