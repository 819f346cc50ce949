#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// The human view of one project that `tracker show` prints: every field under its label, empty ones as "—".
struct ProjectView {
    var today: CalendarDate
    var style: Style
    /// The terminal width to wrap notes to; nil leaves their lines as they are.
    var width: Int? = nil
    var timeZone: Zone = .current

    /// The view; `clientNames` gives names for client ids (an id without one is shown as it is), and `otherFields` the
    /// base's own fields after tracker's, already in words (nil for an empty one).
    func render(
        _ project: Project, clientNames: [String: String] = [:], otherFields: [(String, String?)] = [],
        absent: Set<FieldMap.Word> = [], address: String? = nil
    ) -> String {
        let status = project.status(today: today)
        func date(_ value: CalendarDate?) -> String? { value.map { "\($0) (\($0.relative(to: today)))" } }
        func person(_ person: Collaborator) -> String {
            switch (person.name, person.email) {
            case (let name?, let email?): TextCells.folded("\(name) <\(email)>")
            default: TextCells.folded(person.displayName)
            }
        }
        let due = date(project.due).map { status == .overdue ? style.red($0) : $0 }
        let clients = project.clients.map { TextCells.folded(clientNames[$0] ?? $0) }
        let rows: [(String, String?, FieldMap.Word?)] = [
            ("ID", project.id, nil), ("Status", style.status(status, status.rawValue), nil), ("Due", due, .due),
            ("Kickoff", date(project.kickoff), .kickoff),
            ("Category", project.category.map(TextCells.folded), .category),
            ("Lead", project.lead.map(person), .lead),
            ("Team", project.team.isEmpty ? nil : project.team.map(person).joined(separator: ", "), .team),
            ("Clients", clients.isEmpty ? nil : clients.joined(separator: ", "), .client),
            ("Created", created(project), nil),
        ]
        var text = style.bold(TextCells.folded(project.name ?? "(no name)")) + "\n"
        // A field the base does not have is left out, not shown as empty.
        for (label, value, word) in rows where word.map({ !absent.contains($0) }) ?? true {
            text += line(label, value.map { [$0] } ?? [])
        }
        if let address { text += line("Web", [address]) }
        let notes = project.notes.flatMap { $0.isEmpty ? nil : TextCells.safe($0, breaks: .keepNewlines) }
        let noteLines = notes.map { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
                width.map { TextCells.wrap(String(line), to: max(20, $0 - Self.indent)) } ?? [String(line)]
            }
        }
        if !absent.contains(.notes) { text += line("Notes", noteLines ?? []) }
        // The base's own labels are as long as their names (up to a limit), in a block of their own.
        let labelWidth = min(24, otherFields.map { TextCells.width(TextCells.folded($0.0)) }.max() ?? 0)
        for (label, value) in otherFields {
            text += line(
                TextCells.folded(label), value.map { [TextCells.folded($0)] } ?? [], labelWidth: max(9, labelWidth))
        }
        return text
    }

    /// Columns before a value: two spaces, the label, a space.
    private static let indent = 12

    private func line(_ label: String, _ values: [String], labelWidth: Int = 9) -> String {
        let head = "  " + style.dim(TextCells.fit(label, labelWidth)) + " "
        guard let first = values.first else { return head + style.dim("—") + "\n" }
        let pad = String(repeating: " ", count: labelWidth + 3)
        return head + first + "\n" + values.dropFirst().map { $0.isEmpty ? "\n" : pad + $0 + "\n" }.joined()
    }

    /// When the record was created, as a date in the local time zone.
    private func created(_ project: Project) -> String? {
        guard let instant = ISOInstant.date(project.createdTime) else {
            return project.createdTime.isEmpty ? nil : TextCells.folded(project.createdTime)
        }
        let day = CalendarDate(instant, in: timeZone)
        return "\(day) (\(day.relative(to: today)))"
    }
}
