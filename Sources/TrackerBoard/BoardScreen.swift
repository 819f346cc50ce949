import TrackerModel
import TrackerOperations

/// Draws the board from its model at one size: the lines of the screen, laid out for the visible cards only, so a
/// board of 50,000 projects draws as fast as one of 16.
package struct BoardScreen {
    package var width: Int
    package var height: Int
    package var unicode: Bool
    /// The table's name, for the header.
    package var table: String

    package static let minimumWidth = 60
    package static let minimumHeight = 16
    /// Rows a card takes: its name, its details, a gap.
    package static let cardHeight = 3

    package typealias Line = ScreenLine

    /// How many cards a column shows at this size.
    package var cardsShown: Int { max(1, (height - 4) / Self.cardHeight) }

    package func render(_ model: inout BoardModel) -> [ScreenLine] {
        guard width >= Self.minimumWidth, height >= Self.minimumHeight else { return tooSmall() }
        var lines: [ScreenLine]
        if model.showsHelp {
            lines = help()
        } else if model.showsApprovals {
            lines = approvals(model.approvals)
        } else if model.screen == .card, let card = model.card {
            lines = cardView(card, model: &model)
        } else {
            lines = board(&model)
        }
        lines.append(bottomLine(&model))
        return lines
    }

    private func line() -> ScreenLine { ScreenLine(width: width, unicode: unicode) }

    /// Text from the base, made safe for the screen: control characters and bidi overrides shown, never sent raw.
    package static func safe(_ text: String) -> String { TextCells.folded(text) }

    private func tooSmall() -> [ScreenLine] {
        var lines = (0..<max(1, height)).map { _ in ScreenLine(width: max(1, width), unicode: unicode) }
        let text =
            "The window is too small (\(width)×\(height)); the board needs \(Self.minimumWidth)×\(Self.minimumHeight)."
        let words = unicode ? text : text.replacingAll("×", with: "x")
        var row = max(0, min(height - 1, height / 2))
        for piece in TextCells.wrap(words, to: max(1, width - 1)) where row < lines.count {
            lines[row].add(piece)
            row += 1
        }
        return lines
    }

    // MARK: - The board

    private func board(_ model: inout BoardModel) -> [ScreenLine] {
        let columns = model.columns()
        var lines: [ScreenLine] = []
        var header = line()
        let total = columns.reduce(0) { $0 + $1.count }
        var title = " tracker board · \(Self.safe(table)) · \(total.formatted()) project\(total == 1 ? "" : "s")"
        if model.isLoading { title += " · reading…" } else if let read = model.lastRead { title += " · read \(read)" }
        if let source = model.readsFrom { title += " · " + source }
        if let deletions = model.deletionsSeen { title += " · deletions " + deletions }
        var right: [String] = []
        let waiting = model.approvals.count
        if waiting > 0 { right.append(waiting == 1 ? "1 approval waits (a)" : "\(waiting) approvals wait (a)") }
        if model.mineOnly { right.append("mine") }
        if !model.search.isEmpty { right.append("/" + Self.safe(model.search)) }
        // A space before it too: a title cut short must not run into it.
        let rightText = right.isEmpty ? "" : " " + right.joined(separator: " · ") + " "
        header.add(title, [.bold, .reverse], columns: max(0, width - TextCells.width(rightText)))
        header.add(rightText, [.bold, .reverse])
        header.pad([.reverse])
        lines.append(header)

        let separator = unicode ? "│" : "|"
        let columnWidth = (width - 3) / 4
        let shown = cardsShown
        var titles = line()
        var rule = line()
        for column in BoardCard.Column.allCases {
            let index = column.rawValue
            if index > 0 {
                titles.add(separator, [.dim])
                rule.add(unicode ? "┼" : "+", [.dim])
            }
            let count = columns[index].count
            let row = model.selectedRow(in: index)
            var scroll = model.scroll[index]
            scroll = min(max(scroll, row - shown + 1), row)
            scroll = max(0, min(scroll, max(0, count - shown)))
            model.scroll[index] = scroll
            let more = (scroll > 0 ? (unicode ? "▲" : "^") : "") + (scroll + shown < count ? (unicode ? "▼" : "v") : "")
            var attributes: ScreenLine.Attributes = [.bold]
            if column == .overdue && count > 0 { attributes.insert(.red) }
            if index == model.selectedColumn { attributes.insert(.reverse) }
            titles.add(" \(column.title) \(count.formatted()) \(more)", attributes, columns: columnWidth)
            rule.add(String(repeating: unicode ? "─" : "-", count: columnWidth), [.dim])
        }
        titles.pad()
        rule.pad()
        lines += [titles, rule]

        var rows = (0..<(shown * Self.cardHeight)).map { _ in line() }
        for column in BoardCard.Column.allCases {
            let index = column.rawValue
            let cards = columns[index]
            let selectedRow = model.selectedRow(in: index)
            for slot in 0..<shown {
                let position = model.scroll[index] + slot
                let card = cards.indices.contains(position) ? cards[position] : nil
                let isSelected = card != nil && index == model.selectedColumn && position == selectedRow
                for part in 0..<Self.cardHeight {
                    let row = slot * Self.cardHeight + part
                    if index > 0 { rows[row].add(separator, [.dim]) }
                    guard let card, part < 2 else {
                        rows[row].add("", [], columns: columnWidth)
                        continue
                    }
                    let base: ScreenLine.Attributes = isSelected ? [.reverse] : []
                    if part == 0 {
                        rows[row].add(" " + Self.safe(card.name), base.union(.bold), columns: columnWidth)
                    } else {
                        let (text, late) = details(card, today: model.today)
                        rows[row].add(" " + text, base.union(late ? [.red] : [.dim]), columns: columnWidth)
                    }
                }
            }
        }
        for index in rows.indices { rows[index].pad() }
        lines += rows
        while lines.count < height - 1 { lines.append(line()) }
        return Array(lines.prefix(height - 1))
    }

    /// A card's second line: due (relative), lead, tasks done of all; and whether it is late.
    private func details(_ card: BoardCard, today: CalendarDate) -> (String, Bool) {
        var parts: [String] = []
        if let due = card.due {
            parts.append(card.complete ? "due \(due)" : due.relative(to: today))
        } else {
            parts.append("no due date")
        }
        if let tasks = card.tasks, tasks.total > 0 { parts.append("\(tasks.done)/\(tasks.total)") }
        if let lead = card.lead { parts.append(Self.safe(lead)) }
        let late = !card.complete && card.due.map { $0 < today } == true
        return (parts.joined(separator: " · "), late)
    }

    // MARK: - An open card

    private func cardView(_ card: CardDetail, model: inout BoardModel) -> [ScreenLine] {
        var lines: [ScreenLine] = []
        var header = line()
        let complete = model.cards[card.id]?.complete ?? card.complete
        header.add(" " + Self.safe(card.name), [.bold, .reverse], columns: max(0, width - 8))
        header.add(complete ? " done " : "", [.bold, .reverse])
        header.pad([.reverse])
        lines.append(header)
        var body: [ScreenLine] = []
        var selectedLine: Int?
        if card.isLoading {
            var text = line()
            text.add(" reading…", [.dim])
            body.append(text)
        }
        if let failure = card.failure {
            var text = line()
            text.add(" " + Self.safe(failure), [.red])
            body.append(text)
        }
        // `show` laid the fields out for this width already.
        for field in card.fields {
            var text = line()
            text.add(" " + field.1)
            body.append(text)
        }
        if !card.isLoading {
            var heading = line()
            heading.add("")
            body.append(heading)
            var title = line()
            let done = card.tasks.filter(\.done).count
            title.add(" Tasks", [.bold])
            title.add(card.tasks.isEmpty ? "  none" : "  \(done) of \(card.tasks.count) done", [.dim])
            body.append(title)
            let box = unicode ? ("☐", "✓") : ("[ ]", "[x]")
            for (index, task) in card.tasks.enumerated() {
                var text = line()
                let selected = index == card.selectedTask
                let attributes: ScreenLine.Attributes = selected ? [.reverse] : []
                text.add(" " + (task.done ? box.1 : box.0) + " ", attributes.union(task.done ? .green : []))
                let extra = [task.assignee.map(Self.safe), task.estimate].compactMap { $0 }.joined(separator: " · ")
                let nameRoom = max(8, width - 6 - (extra.isEmpty ? 0 : TextCells.width(extra) + 2))
                text.add(Self.safe(task.name), attributes, columns: nameRoom)
                if !extra.isEmpty { text.add("  " + extra, attributes.union(.dim)) }
                text.pad(attributes)
                if selected { selectedLine = body.count }
                body.append(text)
            }
            for comment in card.comments {
                for piece in TextCells.wrap(comment, to: max(10, width - 2)) {
                    var text = line()
                    text.add(" " + piece)
                    body.append(text)
                }
            }
        }
        let room = height - 2
        var start = min(card.scroll, max(0, body.count - room))
        if let selectedLine, selectedLine >= start + room { start = selectedLine - room + 1 }
        if let selectedLine, selectedLine < start { start = selectedLine }
        lines += body.dropFirst(start).prefix(room)
        while lines.count < height - 1 { lines.append(line()) }
        return lines
    }

    // MARK: - Help and the bottom line

    package static let keys: [(String, String)] = [
        ("arrows, h j k l", "move between cards and columns"), ("PgUp PgDn, g G", "page, first, last in a column"),
        ("Enter", "open the card (Esc or q: back)"), ("Space", "on a card: tick the selected task done or open"),
        ("d", "mark the project done, or open again (asks y/N)"), ("c", "write a comment (Enter sends, Esc drops)"),
        ("u", "undo the last write to the project, from any face (asks y/N)"),
        ("o", "open the record in the browser"), ("/", "narrow to names holding the text (Esc: clear)"),
        ("m", "only mine (lead, team, or a task assigned)"), ("r", "read the table again now"),
        ("a", "the assistants' writes waiting for your approval"),
        ("?", "these keys"), ("q, Ctrl-C", "quit"),
    ]

    private func help() -> [ScreenLine] {
        fullPage(
            "keys",
            Self.keys.map { key, what in
                var text = line()
                text.add("  " + key, [.bold], columns: 20)
                text.add(what)
                return text
            }, end: "any key: back")
    }

    /// `a`: each approval waiting, its diff below it, and how to answer it.
    private func approvals(_ waiting: [ApprovalLine]) -> [ScreenLine] {
        var lines: [ScreenLine] = []
        if waiting.isEmpty {
            var none = line()
            none.add("  Nothing waits for your approval.")
            lines.append(none)
        }
        for approval in waiting {
            var head = line()
            head.add("  " + approval.id + "  ", [.bold])
            head.add(Self.safe(approval.what))
            lines.append(head)
            for change in approval.diff.prefix(3) {
                var text = line()
                text.add("    " + Self.safe(change), [.dim])
                lines.append(text)
            }
            if approval.diff.count > 3 {
                var more = line()
                more.add("    … and \(approval.diff.count - 3) more records", [.dim])
                lines.append(more)
            }
        }
        return fullPage(
            "waiting for your approval", lines,
            end: "In a shell: tracker approve ID (shows it, then makes it) or tracker reject ID · any key: back")
    }

    /// A screen in place of the board (the keys, the approvals): its title, `body`, and what ends it, cut to the
    /// terminal's height.
    private func fullPage(_ title: String, _ body: [ScreenLine], end: String) -> [ScreenLine] {
        var header = line()
        header.add(" tracker board: " + title, [.bold, .reverse])
        header.pad([.reverse])
        var last = line()
        last.add("  " + end, [.dim])
        var lines = [header, line()] + body + [line(), last]
        while lines.count < height - 1 { lines.append(line()) }
        return Array(lines.prefix(height - 1))
    }

    private func bottomLine(_ model: inout BoardModel) -> ScreenLine {
        // The last cell of the last line is never written: some terminals scroll when it is.
        var bottom = ScreenLine(width: width - 1, unicode: unicode)
        let cursor = unicode ? "▏" : "_"
        switch model.input {
        case .search(let text)?:
            bottom.add(" /", [.bold])
            bottom.add(Self.safe(text) + cursor)
        case .comment(let text, _, let name)?:
            let label = " Comment on \"\(Self.safe(name))\": "
            bottom.add(label, [.bold], columns: min(TextCells.width(label), width / 2))
            bottom.add(Self.safe(text) + cursor)
        case .confirmDone(_, let name, let done)?:
            bottom.add(" Mark \"\(Self.safe(name))\" \(done ? "done" : "open again")? [y/N] ", [.bold])
        case .confirmUndo(_, let name)?:
            bottom.add(" Undo the last write to \"\(Self.safe(name))\"? [y/N] ", [.bold])
        case nil:
            if let message = model.message {
                bottom.add(" " + Self.safe(message), [.bold])
            } else if let failure = model.readFailure {
                bottom.add(" " + Self.safe(failure), [.red])
            } else if let warning = model.warning {
                bottom.add(" " + Self.safe(warning), [.red])
            } else if model.screen == .card {
                bottom.add(" Space tick · d done · c comment · o browser · PgDn more · Esc back · ? keys", [.dim])
            } else {
                bottom.add(" Enter open · d done · c comment · / search · m mine · r read · ? keys · q quit", [.dim])
            }
        }
        bottom.pad()
        return bottom
    }
}

extension String {
    /// This text with every `target` replaced (FoundationEssentials has no replacingOccurrences on Linux).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
