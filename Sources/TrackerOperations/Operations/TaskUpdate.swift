import TrackerAPI
import TrackerModel

/// `tracker task update TASK`: changes only the fields given; `--move-to PROJECT` links the task to another project.
package struct TaskUpdate: Operation, Equatable {
    package static let flags = [
        "--project", "--name", "--assignee", "--estimate", "--notes", "--notes-file", "--move-to", "--clear",
        "--dry-run", "--json", "--quiet",
    ]
    /// What `--clear` empties.
    package static let clearable: [TaskWord] = [.assignee, .estimate, .notes]

    package var task: String
    package var project: String?
    package var values: TaskValues
    package var moveTo: String?
    package var clear: [TaskWord] = []
    package var mode = WriteMode()

    package init(_ scanned: ScannedArguments) throws {
        guard scanned.positionals.count == 1 else {
            throw AppError.usage(
                "task update takes one task: tracker task update TASK [--name NAME] …", command: "task")
        }
        task = scanned.positionals[0]
        project = try scanned.nonEmpty("--project")
        values = try TaskValues(scanned, name: try scanned.nonEmpty("--name"))
        moveTo = try scanned.nonEmpty("--move-to")
        // Repeatable, and comma-separated, as update's --clear is.
        for item in scanned.all("--clear").joined(separator: ",").split(separator: ",").map({
            $0.trimmingWhitespace().lowercased()
        }) {
            guard let word = TaskWord(rawValue: item), Self.clearable.contains(word) else {
                throw AppError.usage(
                    "--clear takes \(Self.clearable.map(\.rawValue).joined(separator: ", ")), not \"\(item)\"",
                    command: "task")
            }
            clear.append(word)
        }
        mode = try scanned.writeMode()
        guard values != (try TaskValues(ScannedArguments())) || moveTo != nil || !clear.isEmpty else {
            throw AppError.usage(
                "task update needs something to change: --name, --assignee, --estimate, --notes, --move-to or --clear",
                command: "task")
        }
    }

    package var opening: SessionOpening { .schemaFirst }

    /// Changes only the fields given of the one task named (PATCH); `--move-to` links it to another project.
    package func run(in session: Session) async throws -> TaskUpdated {
        let layout = try session.taskLayout()
        var write = try await session.taskCells(values, layout: layout)
        for word in clear { write[word] = .null }
        _ = try clear.map { try session.taskField($0, for: "--clear \($0.rawValue)", in: layout) }
        var moved: Project?
        if let target = moveTo {
            _ = try session.taskField(.project, for: "--move-to", in: layout)
            moved = try await session.namingForWrites().resolve(target)
            write[.project] = .array([.string(moved!.id)])
        }
        let task = try await session.taskNaming(layout, project: project).resolve(task)
        let change = TaskChange(id: task.id, write: write)
        if mode.dryRun { return .planned(session.client.plannedTaskUpdates([change], in: layout.client)) }
        var updated = task
        // A write: through the session, so a schema read that contradicts the layout afterwards never sends it again.
        try await session.sending { writes in
            try await writes.updateTasks([change], in: layout.client, known: [task]) {
                if let first = $0.first { updated = first }
            }
        }
        return .updated(updated, rows: try await session.taskRows([updated]), movedTo: moved)
    }
}

/// What `task update` came to: the request a dry run would send, or the task as it now is (with its project, and the
/// project it moved to).
package enum TaskUpdated: Sendable {
    case planned([PlannedRequest])
    case updated(ProjectTask, rows: TaskRows, movedTo: Project?)
}
