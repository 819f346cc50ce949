#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker task add PROJECT NAME`: creates one task linked to the project and prints its id; never two for one
/// command (a lost answer is looked for, not sent again).
struct TaskAdd: Equatable, Sendable {
    static let flags = [
        "--assignee", "--estimate", "--notes", "--notes-file", "--if-absent", "--dry-run", "--json", "--quiet",
    ]

    var project: String
    var values: TaskValues
    var ifAbsent = false
    var mode = WriteMode()

    var name: String { values.name ?? "" }

    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        guard scanned.positionals.count == 2 else {
            throw AppError.usage(
                "task add takes the project and the task's name: tracker task add PROJECT NAME", command: "task")
        }
        project = scanned.positionals[0]
        values = try TaskValues(scanned, name: scanned.positionals[1].trimmingWhitespace())
        ifAbsent = scanned.has("--if-absent")
        mode = try scanned.writeMode()
    }

    func run(_ runner: Runner) async throws { try await runner.addTask(self) }
}

extension Runner {
    fileprivate func addTask(_ options: TaskAdd) async throws {
        let base = try await prepareBase()
        let layout = try base.taskLayout()
        _ = try base.taskField(.project, for: "task add", in: layout)
        var write = try await base.taskCells(options.values, layout: layout)
        let project = try await base.namingForWrites().resolve(options.project)
        write[.project] = .array([.string(project.id)])
        let client = base.client
        let table = layout.client
        if options.mode.dryRun {
            try output.standardOutput(client.plannedTaskCreate(write, in: table).body!.serialized() + "\n")
            return
        }
        let rows = { (task: ProjectTask) in TaskRows([task], projects: [project.id: project], today: self.today) }
        // The task is looked for in the Tasks table itself: the project's Tasks field may not hold one another process
        // made meanwhile.
        let creation = try await base.create(
            ifAbsent: options.ifAbsent, lockName: [project.id, options.name], for: "task-add",
            doing: "adding \"\(options.name)\"",
            find: {
                try await client.tasks(in: table, matching: Formula.nameEquals(options.name, field: layout.fields.name))
                    .get().first { $0.name == options.name && $0.projects.contains(project.id) }
            },
            send: { try await $0.createTask(write, in: table, name: options.name, project: project.id).get() })
        guard case .created(let task) = creation else {
            let task = creation.record
            narrate(
                "Task \"\(options.name)\" is already in \"\(project.name ?? project.id)\" (\(task.id)).",
                options.mode)
            noteCreated(false)
            try printTask(task, rows(task), options.mode)
            return
        }
        noteCreated(true)
        narrate("Added \"\(options.name)\" to \"\(project.name ?? project.id)\".", options.mode)
        try printTask(task, rows(task), options.mode)
    }

    /// The one task a command wrote: its id, its JSON object, or nothing.
    func printTask(_ task: ProjectTask, _ rows: TaskRows, _ mode: WriteMode) throws {
        if mode.quiet { return }
        try output.standardOutput(mode.json ? rows.json(task) + "\n" : task.id + "\n")
    }
}
