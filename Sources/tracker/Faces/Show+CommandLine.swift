#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Show: Command {
    /// `tracker show`: one project, by id or name, as a human view or as JSON.
    func run(_ runner: Runner) async throws {
        var options = self
        options.forTerminal = runner.output.isStdoutTerminal
        let detail = try await runner.perform(options)
        let (project, tasks) = (detail.project, detail.tasks)
        if options.json {
            return try runner.output.standardOutput(detail.jsonText(today: runner.today, comments: options.comments))
        }
        let width = runner.output.isStdoutTerminal ? runner.output.terminalWidth : nil
        try runner.output.standardOutput(
            detail.fieldsView(today: runner.today, style: runner.style, width: width, timeZone: runner.context.timeZone)
        )
        if let tasks {
            let rows = TaskRows(tasks, projects: [project.id: project], today: runner.today)
            let unicode =
                runner.output.isStdoutTerminal && TimelineChart.Glyphs.localeIsUTF8(runner.context.environment)
            let heading =
                "\n" + runner.style.bold("Tasks") + "  " + (tasks.isEmpty ? "none" : TaskProgress(tasks).text) + "\n"
            try runner.output.standardOutput(heading + rows.rows(width: width ?? 80, unicode: unicode))
        }
        // Without the comments scope (or when they cannot be read) the project is shown all the same.
        if let ending = detail.commentsView(
            target: options.target, now: runner.context.now(), zone: runner.context.timeZone, today: runner.today,
            style: runner.style,
            width: runner.output.terminalWidth ?? 80)
        {
            try runner.output.standardOutput(ending)
        }
    }
}
