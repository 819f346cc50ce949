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
package struct ProjectView {
    package var today: CalendarDate
    package var style: Style
    /// The terminal width to wrap notes to; nil leaves their lines as they are.
    package var width: Int? = nil
    package var timeZone: Zone = .current

    /// The view; `clientNames` gives names for client ids (an id without one is shown as it is), and `otherFields` the
    /// base's own fields after tracker's, already in words (nil for an empty one).
    package func render(
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
        let rows: [(String, [String]?, FieldMap.Word?)] = [
            ("ID", [project.id], nil), ("Status", [style.status(status, status.rawValue)], nil),
            ("Due", due.map { [$0] }, .due), ("Kickoff", date(project.kickoff).map { [$0] }, .kickoff),
            ("Category", project.category.map { [TextCells.folded($0)] }, .category),
            ("Lead", project.lead.map { [person($0)] }, .lead),
            ("Team", project.team.isEmpty ? nil : project.team.map(person), .team),
            ("Clients", clients.isEmpty ? nil : clients, .client),
            ("Created", created(project).map { [$0] }, nil),
        ]
        // One value column for every label, tracker's and the base's own: a longer label has a line of its own.
        let labelWidth = Self.labelWidth
        var text = style.bold(TextCells.folded(project.name ?? "(no name)")) + "\n"
        // A field the base does not have is left out, not shown as empty.
        for (label, items, word) in rows where word.map({ !absent.contains($0) }) ?? true {
            text += line(label, items.map { fitted($0, labelWidth: labelWidth) } ?? [], labelWidth: labelWidth)
        }
        // The address stays whole, so a terminal can still open it.
        if let address { text += line("Web", [address], labelWidth: labelWidth) }
        let notes = project.notes.flatMap { $0.isEmpty ? nil : TextCells.safe($0, breaks: .keepNewlines) }
        let noteLines = notes.map { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
                width.map { TextCells.wrap(String(line), to: max(20, $0 - labelWidth - 3)) } ?? [String(line)]
            }
        }
        if !absent.contains(.notes) { text += line("Notes", noteLines ?? [], labelWidth: labelWidth) }
        for (label, value) in otherFields {
            let values = value.map { fitted(Self.items(TextCells.folded($0)), labelWidth: labelWidth) } ?? []
            text += line(TextCells.folded(label), values, labelWidth: labelWidth)
        }
        return text
    }

    /// The label column: tracker's labels fit it; a longer one (the base's "Project images") stands on a line of its
    /// own above its value, so every value starts in the same column.
    package static let labelWidth = 9

    private func line(_ label: String, _ values: [String], labelWidth: Int) -> String {
        let pad = String(repeating: " ", count: labelWidth + 3)
        let fits = TextCells.width(label) <= labelWidth
        let head =
            fits
            ? "  " + style.dim(TextCells.fit(label, labelWidth)) + " "
            : "  "
                + style.dim(TextCells.withoutTrailingSpaces(TextCells.fit(label, max(labelWidth, (width ?? 80) - 3))))
                + "\n" + pad
        guard let first = values.first else { return head + style.dim("—") + "\n" }
        return head + first + "\n" + values.dropFirst().map { $0.isEmpty ? "\n" : pad + $0 + "\n" }.joined()
    }

    /// A value's items laid out in the value column: on one line when they fit the terminal, else broken between
    /// items (", "), an item wider than the column broken at its spaces. Without a width, one line.
    private func fitted(_ items: [String], labelWidth: Int) -> [String] {
        let joined = items.joined(separator: ", ")
        guard let width else { return [joined] }
        let room = max(20, width - labelWidth - 4)
        guard TextCells.width(joined) > room else { return [joined] }
        var lines: [String] = []
        var current = ""
        for (index, item) in items.enumerated() {
            let piece = item + (index < items.count - 1 ? "," : "")
            if !current.isEmpty && TextCells.width(current) + 1 + TextCells.width(piece) > room {
                lines.append(current)
                current = ""
            }
            if TextCells.width(piece) > room {
                if !current.isEmpty { lines.append(current) }
                var pieces = TextCells.wrap(piece, to: room).flatMap { Self.broken($0, to: room) }
                current = pieces.removeLast()
                lines += pieces
            } else {
                current += (current.isEmpty ? "" : " ") + piece
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `word` in pieces of at most `room` columns: a name with no space to break at (a long file name).
    private static func broken(_ word: String, to room: Int) -> [String] {
        guard TextCells.width(word) > room else { return [word] }
        var pieces: [String] = []
        var current = ""
        for character in word {
            if TextCells.width(current) + TextCells.width(character) > room {
                pieces.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// A formatted value of the base's own field as its items: lists are comma-separated there.
    private static func items(_ text: String) -> [String] {
        text.components(separatedBy: ", ")
    }

    /// When the record was created, as a date in the local time zone.
    private func created(_ project: Project) -> String? {
        guard let instant = ISOInstant.date(project.createdTime) else {
            return project.createdTime.isEmpty ? nil : TextCells.folded(project.createdTime)
        }
        let day = CalendarDate(instant, in: timeZone)
        return "\(day) (\(day.relative(to: today)))"
    }
    /// Each stored value given.
    package init(today: CalendarDate, style: Style, width: Int? = nil, timeZone: Zone = .current) {
        self.today = today
        self.style = style
        self.width = width
        self.timeZone = timeZone
    }
}
