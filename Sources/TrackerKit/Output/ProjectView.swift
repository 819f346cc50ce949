/// The human view of one project that `tracker show` prints.
struct ProjectView {
    var today: CalendarDate
    var style: Style
    /// The terminal width to wrap notes to; nil leaves their lines as they are.
    var width: Int? = nil

    func render(_ project: Project) -> String {
        let status = project.status(today: today)
        var rows: [(String, String)] = [
            ("ID", TextCells.folded(project.id)), ("Status", style.status(status, status.rawValue)),
        ]
        func date(_ value: CalendarDate?) -> String? { value.map { "\($0) (\($0.relative(to: today)))" } }
        func person(_ person: Collaborator) -> String {
            switch (person.name, person.email) {
            case (let name?, let email?): TextCells.folded("\(name) <\(email)>")
            default: TextCells.folded(person.displayName)
            }
        }
        if let due = date(project.due) { rows.append(("Due", status == .overdue ? style.red(due) : due)) }
        if let kickoff = date(project.kickoff) { rows.append(("Kickoff", kickoff)) }
        if let category = project.category { rows.append(("Category", TextCells.folded(category))) }
        if let lead = project.lead { rows.append(("Lead", person(lead))) }
        if !project.team.isEmpty { rows.append(("Team", project.team.map(person).joined(separator: ", "))) }
        if !project.clients.isEmpty {
            rows.append(("Clients", TextCells.folded(project.clients.joined(separator: ", "))))
        }
        if !project.createdTime.isEmpty { rows.append(("Created", TextCells.folded(project.createdTime))) }
        var text = style.bold(TextCells.folded(project.name ?? "(no name)")) + "\n"
        for (label, value) in rows {
            text += "  " + style.dim(TextCells.fit(label, 9)) + " " + value + "\n"
        }
        if let notes = project.notes, !notes.isEmpty {
            let safe = TextCells.safe(notes, breaks: .keepNewlines)
            let lines = safe.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
                width.map { Self.wrap(String(line), to: max(20, $0 - 2)) } ?? [String(line)]
            }
            text += "\n" + lines.map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return text
    }

    /// Breaks `line` at spaces so no piece is wider than `width` (a longer word stands alone).
    static func wrap(_ line: String, to width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            if !current.isEmpty && TextCells.width(current) + 1 + TextCells.width(String(word)) > width {
                lines.append(current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        return lines + [current]
    }
}
