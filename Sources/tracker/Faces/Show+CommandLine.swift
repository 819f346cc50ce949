#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

extension Show: Command {
    func run(_ runner: Runner) async throws { try await runner.show(self) }
}

extension Runner {
    /// `tracker show`: one project, by id or name, as a human view or as JSON.
    fileprivate func show(_ options: Show) async throws {
        var options = options
        options.forTerminal = output.isStdoutTerminal
        let detail = try await perform(options)
        let (project, tasks) = (detail.project, detail.tasks)
        if options.json { return try output.standardOutput(detail.jsonText(today: today, comments: options.comments)) }
        let width = output.isStdoutTerminal ? output.terminalWidth : nil
        try output.standardOutput(
            detail.fieldsView(today: today, style: style, width: width, timeZone: context.timeZone))
        if let tasks {
            let rows = TaskRows(tasks, projects: [project.id: project], today: today)
            let unicode = output.isStdoutTerminal && TimelineChart.Glyphs.localeIsUTF8(context.environment)
            let heading = "\n" + style.bold("Tasks") + "  " + (tasks.isEmpty ? "none" : TaskProgress(tasks).text) + "\n"
            try output.standardOutput(heading + rows.rows(width: width ?? 80, unicode: unicode))
        }
        // Without the comments scope (or when they cannot be read) the project is shown all the same.
        if let ending = detail.commentsView(
            target: options.target, now: context.now(), zone: context.timeZone, today: today, style: style,
            width: output.terminalWidth ?? 80)
        {
            try output.standardOutput(ending)
        }
    }
}
