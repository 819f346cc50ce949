#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension TaskShow {
    func run(_ runner: Runner) async throws {
        let options = self
        let rows = try await runner.perform(options)
        guard let task = rows.tasks.first else { return }
        if options.json { return try runner.output.standardOutput(rows.json(task) + "\n") }
        var lines = [runner.style.bold(TextCells.folded(task.name ?? task.id))]
        func line(_ label: String, _ value: String) {
            lines.append("  " + label + String(repeating: " ", count: max(1, 10 - label.count)) + value)
        }
        if let project = rows.project(of: task) {
            let status = project.status(today: runner.today)
            let due = project.due.map { "due \($0) (\($0.relative(to: runner.today))), " } ?? ""
            line(
                "Project",
                TextCells.folded(project.name ?? project.id) + "  " + due + runner.style.status(status, status.rawValue)
            )
        } else {
            line("Project", task.project ?? "none")
        }
        line("Status", task.isComplete ? runner.style.green("done") : "open")
        if let person = task.assignee {
            line(
                "Assignee",
                TextCells.folded(person.displayName) + (person.email.map { " <\(TextCells.folded($0))>" } ?? ""))
        }
        if let estimate = task.estimate {
            line("Estimate", ProjectTask.days(estimate) + (estimate == 1 ? " day" : " days"))
        }
        if let notes = task.notes, !notes.isEmpty {
            let shown = TextCells.safe(notes, breaks: .keepNewlines).split(
                separator: "\n", omittingEmptySubsequences: false)
            line("Notes", shown.first.map(String.init) ?? "")
            for more in shown.dropFirst() { lines.append(String(repeating: " ", count: 12) + more) }
        }
        line("Id", task.id)
        try runner.output.standardOutput(lines.joined(separator: "\n") + "\n")
    }
}
