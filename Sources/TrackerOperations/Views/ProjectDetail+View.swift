#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

extension ProjectDetail {
    /// The project object `show --json` prints and `mcp`'s show_project gives, one line: every field, its tasks'
    /// progress, "clientNames" beside the clients' ids (null where a name cannot be read), and with `comments` the
    /// newest comments (none where they cannot be read: the project is shown all the same).
    package func jsonText(today: CalendarDate, comments withComments: Bool) -> String {
        var json = JSONWriter(capacity: 1024)
        write(today: today, comments: withComments, to: &json)
        return json.text + "\n"
    }

    /// The same object as a value.
    package func jsonValue(today: CalendarDate, comments withComments: Bool) -> JSONValue {
        JSONTree.build { write(today: today, comments: withComments, to: &$0) }
    }

    private func write<Sink: JSONSink>(today: CalendarDate, comments withComments: Bool, to json: inout Sink) {
        let progress = tasks.map(TaskProgress.init)
        project.writeJSON(today: today, tasks: progress, to: &json) { json in
            // Additive: "clients" stays the ids.
            if !project.clients.isEmpty {
                json.key("clientNames")
                json.beginArray()
                for id in project.clients { json.string(or: recordNames[id]) }
                json.endArray()
            }
            if withComments {
                json.key("comments")
                json.value(.array(((try? comments?.get()) ?? []).map(\.object)))
            }
        }
    }

    /// Each task as its JSON object (with its project's name, due date and status), as `tasks --json` gives them.
    package func taskObjects(today: CalendarDate) -> [JSONValue]? {
        guard let tasks else { return nil }
        let rows = TaskRows(tasks, projects: [project.id: project], today: today)
        return tasks.map { rows.jsonValue($0) }
    }

    /// The project as `show` lays it out, and the board's card: its name, then every field under its label (the base's
    /// own in the table's order, every one, empty or not), wrapped to `width` when given.
    package func fieldsView(today: CalendarDate, style: Style, width: Int?, timeZone: Zone) -> String {
        let formatter = FieldFormatter(table: layout.table, timeZone: timeZone, recordNames: recordNames)
        // Without the schema, the fields as the record has them.
        let values = Dictionary(project.otherFields.map { ($0.name, $0.value) }) { first, _ in first }
        let listed = tasks == nil ? nil : layout.tasks?.projectsLink
        let shown =
            layout.table?.fields.map(\.name).filter { !layout.fields.isTrackerField($0) && $0 != listed }
            ?? project.otherFields.map(\.name)
        let others = shown.map { ($0, formatter.text(values[$0], field: $0)) }
        let view = ProjectView(today: today, style: style, width: width, timeZone: timeZone)
        return view.render(
            project, clientNames: recordNames, otherFields: others, absent: Set(layout.fields.absent), address: address)
    }

    /// The newest comments that end the view, oldest of them first, and where to read the rest (`target` as typed);
    /// nil when there are none, or they could not be read (the project is shown all the same).
    package func commentsView(
        target: String, now: Date, zone: Zone, today: CalendarDate, style: Style, width: Int
    ) -> String? {
        guard case .success(let newest)? = comments, !newest.isEmpty else { return nil }
        let shown = Array(newest.prefix(Show.commentsShown).reversed())
        let more = newest.count > Show.commentsShown
        let quoted = target.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" }) ? "\"\(target)\"" : target
        let heading =
            "\n" + style.bold("Comments")
            + (more ? style.dim("  the \(shown.count) newest; all: tracker comments \(TextCells.folded(quoted))") : "")
            + "\n"
        return heading + CommentView(now: now, zone: zone, today: today, style: style, width: width).render(shown)
    }
}
