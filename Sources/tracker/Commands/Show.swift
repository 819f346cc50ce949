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
        let (project, tasks, comments, layout) = (detail.project, detail.tasks, detail.comments, detail.layout)
        if let tasks, let notes = context.notes {
            let rows = TaskRows(tasks, projects: [project.id: project], today: today)
            notes.tasks = tasks.compactMap { try? JSONParser.parse(rows.json($0)) }
        }
        if options.json {
            var text = project.jsonText(today: today, tasks: tasks.map(TaskProgress.init))
            if !project.clients.isEmpty {
                text.removeLast()
                text +=
                    ",\"clientNames\":"
                    + JSONValue.array(project.clients.map { JSONValue.string(or: detail.recordNames[$0]) }).serialized()
                    + "}"
            }
            if options.comments {
                // Without the comments scope the project is shown all the same, as on a terminal.
                let newest = (try? comments?.get()) ?? []
                text.removeLast()
                text += ",\"comments\":" + JSONValue.array(newest.map(\.object)).serialized() + "}"
            }
            try output.standardOutput(text + "\n")
            return
        }
        let formatter = FieldFormatter(table: layout.table, timeZone: context.timeZone, recordNames: detail.recordNames)
        // The base's own fields in the table's order (every one, empty or not), else as the record has them.
        let values = Dictionary(project.otherFields.map { ($0.name, $0.value) }) { first, _ in first }
        let listed = tasks == nil ? nil : layout.tasks?.projectsLink
        let shown =
            layout.table?.fields.map(\.name).filter { !layout.fields.isTrackerField($0) && $0 != listed }
            ?? project.otherFields.map(\.name)
        let others = shown.map { ($0, formatter.text(values[$0], field: $0)) }
        let width = output.isStdoutTerminal ? output.terminalWidth : nil
        let view = ProjectView(today: today, style: style, width: width, timeZone: context.timeZone)
        try output.standardOutput(
            view.render(
                project, clientNames: detail.recordNames, otherFields: others, absent: Set(layout.fields.absent),
                address: detail.address))
        if let tasks {
            let rows = TaskRows(tasks, projects: [project.id: project], today: today)
            let unicode = output.isStdoutTerminal && TimelineChart.Glyphs.localeIsUTF8(context.environment)
            let heading = "\n" + style.bold("Tasks") + "  " + (tasks.isEmpty ? "none" : TaskProgress(tasks).text) + "\n"
            try output.standardOutput(heading + rows.rows(width: width ?? 80, unicode: unicode))
        }
        // Without the comments scope (or when they cannot be read) the project is shown all the same.
        if case .success(let newest)? = comments, !newest.isEmpty {
            try output.standardOutput(commentsEnding(newest, target: options.target))
        }
    }

    /// The newest comments, oldest of them first, and where to read the rest.
    private func commentsEnding(_ newest: [RecordComment], target: String) -> String {
        let shown = Array(newest.prefix(Show.commentsShown).reversed())
        let more = newest.count > Show.commentsShown
        let quoted = target.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" }) ? "\"\(target)\"" : target
        var text =
            "\n" + style.bold("Comments")
            + (more ? style.dim("  the \(shown.count) newest; all: tracker comments \(TextCells.folded(quoted))") : "")
            + "\n"
        let view = CommentView(
            now: context.now(), zone: context.timeZone, today: today, style: style, width: output.terminalWidth ?? 80)
        text += view.render(shown)
        return text
    }

}
