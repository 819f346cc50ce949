#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

/// `tracker task add PROJECT NAME`: creates one task linked to the project and prints its id; never two for one
/// command (a lost answer is looked for, not sent again).
struct TaskAdd: Equatable, Sendable {
    static let flags = ["--assignee", "--estimate", "--notes", "--notes-file", "--if-absent", "--dry-run", "--json", "--quiet"]

    var project: String
    var name: String
    var assignee: String?
    var estimate: Double?
    var notes: NotesSource?
    var ifAbsent = false
    var mode = WriteMode()

    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        guard scanned.positionals.count == 2 else {
            throw AppError.usage(
                "task add takes the project and the task's name: tracker task add PROJECT NAME", command: "task")
        }
        project = scanned.positionals[0]
        name = scanned.positionals[1].trimmingWhitespace()
        guard !name.isEmpty else { throw AppError.usage("the task's name is empty", command: "task") }
        try TextRules.refuseControlCharacters(name, flag: "the task's name", command: "task")
        assignee = try scanned.nonEmpty("--assignee")
        if let text = scanned.last("--estimate") {
            guard let days = DaysInput.days(text) else {
                throw AppError.usage(
                    "--estimate takes a number of days that is not negative (1.5, 0.5, 2d, 1w), not \"\(text)\"",
                    command: "task")
            }
            estimate = days
        }
        try scanned.rejectTogether("--notes", "--notes-file")
        if let text = scanned.last("--notes") {
            try TextRules.refuseControlCharacters(text, flag: "--notes", command: "task", allowingLineBreaks: true)
            notes = .text(text)
        }
        if let path = scanned.last("--notes-file") { notes = path == "-" ? .standardInput : .file(path) }
        ifAbsent = scanned.has("--if-absent")
        mode = try scanned.writeMode()
    }

    func run(_ runner: Runner) async throws { try await runner.addTask(self) }
}

extension Runner {
    fileprivate func addTask(_ options: TaskAdd) async throws {
        let base = try await prepareBase()
        let layout = try taskLayout(base)
        let fields = layout.fields
        let notes = try readNotes(options.notes, command: "task")
        if let notes {
            try TextRules.refuseControlCharacters(notes, flag: "--notes-file", command: "task", allowingLineBreaks: true)
        }
        func need(_ word: TaskWord, _ flag: String) throws -> String {
            guard let field = fields[word] else {
                throw AppError.usage(
                    "\(flag) needs the Tasks table's \"\(word.rawValue)\" field (\(word.templateName)), and \"\(layout.name)\" has none",
                    command: "task")
            }
            return field
        }
        _ = try need(.project, "task add")
        var write = TaskWrite()
        write[.name] = .string(options.name)
        if let estimate = options.estimate {
            let field = try need(.estimate, "--estimate")
            // Without the schema the template's precision (one decimal place) is the stricter reading.
            let precision = layout.table?.field(named: field)?.precision ?? 1
            guard DaysInput.fits(estimate, precision: precision) else {
                let places = precision == 0 ? "whole days" : "\(precision) decimal place\(precision == 1 ? "" : "s")"
                throw AppError.usage(
                    "--estimate \(ProjectTask.days(estimate)): \(field) takes \(places)", command: "task")
            }
            write[.estimate] = .number(estimate)
        }
        if let notes { write[.notes] = .string(notes) }
        let project = try await ProjectNaming(client: base.client).resolve(options.project)
        write[.project] = .array([.string(project.id)])
        if let assignee = options.assignee {
            _ = try need(.assignee, "--assignee")
            write[.assignee] = try await assigneeCell(assignee, base: base)
        }
        let client = base.client
        let table = layout.client
        if options.mode.dryRun {
            try output.standardOutput(client.plannedTaskCreate(write, in: table).body!.serialized() + "\n")
            return
        }
        let rows = { (task: ProjectTask) in TaskRows([task], projects: [project.id: project], today: self.today) }
        // Two runs of the same cron line must not both find the name absent and both create it.
        let lock =
            options.ifAbsent
            ? try await lock([project.id, options.name], for: "task-add", in: base, doing: "adding \"\(options.name)\"")
            : nil
        defer { withExtendedLifetime(lock) {} }
        if options.ifAbsent {
            let existing = try await readTasks(TaskFilters(state: .all), of: project, tasks: layout, base: base)
            if let task = existing.tasks.first(where: { $0.name == options.name }) {
                narrate("Task \"\(options.name)\" is already in \"\(project.name ?? project.id)\" (\(task.id)).", options.mode)
                return try printTask(task, rows(task), options.mode)
            }
        }
        neverRunAgain()
        let task = try await client.createTask(write, in: table, name: options.name, project: project.id).get()
        narrate("Added \"\(options.name)\" to \"\(project.name ?? project.id)\".", options.mode)
        try printTask(task, rows(task), options.mode)
    }

    /// The collaborator cell for `--assignee`: the token's user for `me`, else an email or a unique collaborator's name.
    func assigneeCell(_ typed: String, base: Base) async throws -> JSONValue {
        if typed.lowercased() == "me" { return .object([("id", .string(try await base.knowledge.me()))]) }
        let checker = try await valueChecker(base, command: "task")
        return try await checker.collaborators(for: [typed])[0]
    }

    /// The one task a command wrote: its id, its JSON object, or nothing.
    func printTask(_ task: ProjectTask, _ rows: TaskRows, _ mode: WriteMode) throws {
        if mode.quiet { return }
        try output.standardOutput(mode.json ? rows.json(task) + "\n" : task.id + "\n")
    }
}
