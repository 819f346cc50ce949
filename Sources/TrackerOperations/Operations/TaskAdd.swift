import TrackerAPI
import TrackerModel

/// `tracker task add PROJECT NAME`: creates one task linked to the project and prints its id; never two for one
/// command (a lost answer is looked for, not sent again).
package struct TaskAdd: Operation, Equatable {
    package static let flags = [
        "--assignee", "--estimate", "--notes", "--notes-file", "--if-absent", "--dry-run", "--json", "--quiet",
    ]

    package var project: String
    package var values: TaskValues
    package var ifAbsent = false
    package var mode = WriteMode()

    package var name: String { values.name ?? "" }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        guard scanned.positionals.count == 2 else {
            throw AppError.usage(
                "task add takes the project and the task's name: tracker task add PROJECT NAME", command: "task")
        }
        project = scanned.positionals[0]
        values = try TaskValues(scanned, name: scanned.positionals[1].trimmingWhitespace())
        ifAbsent = scanned.has("--if-absent")
        mode = try scanned.writeMode()
    }

    package var opening: SessionOpening { .schemaFirst }

    /// Creates one task linked to the project, exactly once; with `--if-absent`, only when the project has no task of
    /// that name.
    package func run(in session: Session) async throws -> TaskAdded {
        let layout = try session.taskLayout()
        _ = try session.taskField(.project, for: "task add", in: layout)
        var write = try await session.taskCells(values, layout: layout)
        let project = try await session.namingForWrites().resolve(project)
        write[.project] = .array([.string(project.id)])
        let client = session.client
        let table = layout.client
        if mode.dryRun { return .planned(client.plannedTaskCreate(write, in: table)) }
        let name = name
        // The task is looked for in the Tasks table itself: the project's Tasks field may not hold one another process
        // made meanwhile.
        let creation = try await session.create(
            ifAbsent: ifAbsent, lockName: [project.id, name], for: "task-add", doing: "adding \"\(name)\"",
            find: {
                try await client.tasks(in: table, matching: Formula.nameEquals(name, field: layout.fields.name))
                    .get().first { $0.name == name && $0.projects.contains(project.id) }
            },
            send: { try await $0.task(write, in: table, name: name, project: project.id) })
        return .done(
            creation, in: project,
            rows: TaskRows([creation.record], projects: [project.id: project], today: session.today)
        )
    }
}

/// What `task add` came to: the request a dry run would send, or the task created (or found) in its project, with
/// the rows its JSON is written from.
package enum TaskAdded: Sendable {
    case planned(PlannedRequest)
    case done(Creation<ProjectTask>, in: Project, rows: TaskRows)
}
