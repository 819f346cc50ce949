import TrackerAPI
import TrackerModel
import TrackerOperations
extension Runner {
    /// One line for a person at a terminal, on stderr; nothing in scripts, cron, or with `-q`.
    func narrate(_ text: String, _ mode: WriteMode) {
        if output.isStderrTerminal && !mode.quiet { output.standardError(TextCells.folded(text) + "\n") }
    }

    /// The one project a command wrote: its id, its JSON object, or nothing.
    func printWritten(_ project: Project, _ mode: WriteMode) throws {
        if mode.quiet { return }
        try output.standardOutput(mode.json ? project.jsonText(today: today) + "\n" : project.id + "\n")
    }

    /// The one task a command wrote: its id, its JSON object, or nothing.
    func printTask(_ task: ProjectTask, _ rows: TaskRows, _ mode: WriteMode) throws {
        if mode.quiet { return }
        try output.standardOutput(mode.json ? rows.json(task) + "\n" : task.id + "\n")
    }

    /// What a write changed, in words: `due 2026-11-27 (in 5 days), notes cleared, Budget`.
    func describe(_ write: ProjectWrite, as project: Project) -> String {
        write.cells.map { target, value in
            guard case .word(let word) = target else {
                let name = ProjectWrite.fieldName(target, .template) ?? ""
                return value == .null ? "\(name) cleared" : name
            }
            if value == .null && word != .complete { return "\(word.rawValue) cleared" }
            switch word {
            case .due: return "due " + (project.due.map { "\($0) (\($0.relative(to: today)))" } ?? "?")
            case .kickoff: return "kickoff " + (project.kickoff?.description ?? "?")
            case .complete: return project.isComplete ? "complete" : "not complete"
            case .name: return "renamed"
            case .category: return "category \(project.category ?? "?")"
            case .lead: return "lead \(project.lead?.displayName ?? "?")"
            case .team: return "team of \(project.team.count)"
            case .client: return "\(project.clients.count) client\(project.clients.count == 1 ? "" : "s")"
            case .notes: return "notes"
            }
        }.joined(separator: ", ")
    }

    /// Prints the requests a `--dry-run` would send: `METHOD path` and the JSON body.
    func printPlanned(_ requests: [PlannedRequest]) throws {
        for request in requests { try output.standardOutput(request.text) }
    }

    /// Prints projects a command wrote, as they are written: ids one a line, a JSON array with `--json`, or nothing
    /// with `-q`. `finish` closes the array.
    func writtenOutput(_ mode: WriteMode) -> WrittenOutput {
        WrittenOutput(mode: mode, today: today, output: output)
    }
}

/// The stdout of a command that writes several projects, streamed batch by batch so what was done is on record even
/// if a later batch fails.
struct WrittenOutput {
    let mode: WriteMode
    private var array: JSONArrayRenderer
    private let output: Output

    init(mode: WriteMode, today: CalendarDate, output: Output) {
        self.mode = mode
        self.array = JSONArrayRenderer(today: today)
        self.output = output
    }

    /// Ids already printed: a write that is tried again after finding projects by name prints each once.
    private var printed: Set<String> = []

    mutating func emit(_ projects: [Project]) throws {
        let fresh = projects.filter { printed.insert($0.id).inserted }
        guard !mode.quiet, !fresh.isEmpty else { return }
        let text = mode.json ? array.render(page: fresh) : fresh.map { $0.id + "\n" }.joined()
        try output.standardOutput(text)
    }

    /// Prints ids of projects written without being read (a delete by id); not for `--json`, which prints objects.
    mutating func emitIDs(_ ids: [String]) throws {
        let fresh = ids.filter { printed.insert($0).inserted }
        guard !mode.quiet, !fresh.isEmpty else { return }
        try output.standardOutput(fresh.map { $0 + "\n" }.joined())
    }

    mutating func finish() throws {
        if mode.json && !mode.quiet { try output.standardOutput(array.finish()) }
    }
}
