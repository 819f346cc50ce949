import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker task update TASK`: changes only the fields given; `--move-to PROJECT` links the task to another project.
struct TaskUpdate: Equatable, Sendable {
    static let flags = [
        "--project", "--name", "--assignee", "--estimate", "--notes", "--notes-file", "--move-to", "--clear",
        "--dry-run", "--json", "--quiet",
    ]
    /// What `--clear` empties.
    static let clearable: [TaskWord] = [.assignee, .estimate, .notes]

    var task: String
    var project: String?
    var values: TaskValues
    var moveTo: String?
    var clear: [TaskWord] = []
    var mode = WriteMode()

    init(_ scanned: ScannedArguments) throws {
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

    func run(_ runner: Runner) async throws { try await runner.updateTask(self) }
}

extension Runner {
    fileprivate func updateTask(_ options: TaskUpdate) async throws {
        let base = try await prepareBase()
        let layout = try base.taskLayout()
        var write = try await base.taskCells(options.values, layout: layout)
        for word in options.clear { write[word] = .null }
        _ = try options.clear.map { try base.taskField($0, for: "--clear \($0.rawValue)", in: layout) }
        var moved: Project?
        if let target = options.moveTo {
            _ = try base.taskField(.project, for: "--move-to", in: layout)
            moved = try await base.namingForWrites().resolve(target)
            write[.project] = .array([.string(moved!.id)])
        }
        let task = try await base.taskNaming(layout, project: options.project).resolve(options.task)
        let change = TaskChange(id: task.id, write: write)
        if options.mode.dryRun { return try printPlanned(base.client.plannedTaskUpdates([change], in: layout.client)) }
        var updated = task
        try await base.client.updateTasks([change], in: layout.client) { if let first = $0.first { updated = first } }
        let rows = try await base.taskRows([updated])
        narrate(
            "Updated \"\(updated.name ?? updated.id)\"\(moved.map { ", now in \"\($0.name ?? $0.id)\"" } ?? "").",
            options.mode)
        try printTask(updated, rows, options.mode)
    }
}
