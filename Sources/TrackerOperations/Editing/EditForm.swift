import TrackerAPI
import TrackerModel

/// The text form `tracker edit` hands to the editor (docs/contract.md "edit"): `#` lines saying what this is, one
/// `Field: value` line per field tracker can write, values in the forms the flags and `--set` take, notes last as a
/// block. Reading it back gives each field's text, compared as text with what was opened.
package struct EditForm: Equatable {
    /// What a line of the form writes: one of tracker's words, or one of the base's own fields.
    package enum Key: Equatable {
        case word(FieldMap.Word)
        case field(BaseSchema.Field)
    }

    /// One field of the form: its label, what it writes and its value as text.
    package struct Entry: Equatable {
        package var label: String
        package var key: Key
        package var value: String
    }

    /// The form could not be read: what is wrong with each line at fault, by its number in the text read.
    package struct Problems: Error, Equatable {
        package var lines: [(number: Int, problem: String)]

        /// One message a line, numbered as in a file that has `offset` more lines above the text read.
        package func messages(offset: Int = 0) -> [String] {
            lines.map { "line \($0.number + offset)\($0.problem)" }
        }

        package static func == (lhs: Problems, rhs: Problems) -> Bool { lhs.messages() == rhs.messages() }
    }

    /// What the first line says the form is.
    package var title: String
    /// In the form's order; notes, when the base has them, last.
    package var entries: [Entry]

    /// Marks the lines `edit` adds above the form when a value failed its check; they go when the form is read.
    package static let problemPrefix = "# error: "

    /// The form for `project` as `layout` has it; `recordNames` names linked records by id (ids stay ids otherwise).
    package init(project: Project, layout: TableLayout, recordNames: [String: String]) {
        let fields = layout.fields
        title = "\"\(project.name ?? project.id)\" (\(project.id))"
        var entries: [Entry] = []
        func names(_ ids: [String]) -> String {
            // A name with a comma would read back as two; such a record is given by its id.
            ids.map { id in recordNames[id].flatMap { $0.contains(",") || $0.isEmpty ? nil : $0 } ?? id }
                .joined(separator: ", ")
        }
        func person(_ person: Collaborator) -> String { person.email ?? person.name ?? person.id ?? "" }
        for word in FieldMap.Word.allCases where word != .notes && fields[word] != nil {
            let value: String =
                switch word {
                case .name: project.name ?? ""
                case .category: project.category ?? ""
                case .complete: project.isComplete ? "yes" : "no"
                case .kickoff: project.kickoff?.description ?? ""
                case .due: project.due?.description ?? ""
                case .lead: project.lead.map(person) ?? ""
                case .team: project.team.map(person).joined(separator: ", ")
                case .client: names(project.clients)
                case .notes: ""
                }
            entries.append(Entry(label: Self.label(word), key: .word(word), value: value))
        }
        let values = Dictionary(project.otherFields.map { ($0.name, $0.value) }) { first, _ in first }
        let taken = Set(entries.map { $0.label.lowercased() } + ["notes"])
        for field in layout.table?.fields ?? [] where !fields.isTrackerField(field.name) {
            // A field tracker cannot write, or whose name reads as another line, stays out of the form.
            guard FieldInput.refusal(field) == nil, !taken.contains(field.name.lowercased()),
                TextRules.forbiddenCharacter(in: field.name) == nil, !field.name.hasPrefix("#"),
                field.name.trimmingWhitespace() == field.name, !field.name.isEmpty
            else { continue }
            let text = Self.text(values[field.name], of: field, names: names)
            entries.append(Entry(label: field.name, key: .field(field), value: text))
        }
        if fields[.notes] != nil {
            entries.append(Entry(label: Self.label(.notes), key: .word(.notes), value: project.notes ?? ""))
        }
        self.entries = entries
    }

    /// A word's label: `Due`, `Kickoff`, `Client`.
    package static func label(_ word: FieldMap.Word) -> String {
        word.rawValue.firstLetterUppercased
    }

    /// A value of the base's own field in the form `--set` reads back.
    package static func text(_ value: JSONValue?, of field: BaseSchema.Field, names: ([String]) -> String) -> String {
        guard let value, value != .null else { return field.type == "checkbox" ? "no" : "" }
        switch value {
        case .bool(let flag): return flag ? "yes" : "no"
        case .string(let text): return text
        case .number: return value.serialized()
        case .array(let items) where field.type == "multipleRecordLinks": return names(items.compactMap(\.stringValue))
        case .array(let items): return items.map { text($0, of: field, names: names) }.joined(separator: ", ")
        case .object:
            return value["email"]?.stringValue ?? value["text"]?.stringValue ?? value["name"]?.stringValue
                ?? value.serialized()
        case .null: return ""
        }
    }

    // MARK: - Writing

    /// `problems` as the lines that go above the form: `# error: …`, then a `#` line.
    package static func problemLines(_ problems: [String]) -> String {
        problems.map { problemPrefix + TextCells.folded($0) + "\n" }.joined() + "#\n"
    }

    /// The file's text.
    package func text() -> String {
        var lines = [
            "# Editing \(title). Save and quit to apply.",
            "# To cancel, quit without saving or delete every line.",
            "# An empty value empties the field; a deleted line leaves it as it is.",
            "# Lists are comma-separated. Dates: YYYY-MM-DD, today, friday, +3d. Complete: yes or no.",
        ]
        if entries.last?.key == .word(.notes) { lines.append("# Notes come last and run to the end of the file.") }
        for entry in entries {
            if entry.key == .word(.notes) {
                lines.append(entry.label + ":")
                if !entry.value.isEmpty { lines.append(entry.value) }
                continue
            }
            // A value of several lines goes on in lines indented by two spaces.
            let parts = entry.value.split(separator: "\n", omittingEmptySubsequences: false)
            lines.append(entry.label + ":" + (parts[0].isEmpty ? "" : " " + parts[0]))
            lines += parts.dropFirst().map { "  " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Reading

    /// The values the edited `text` gives, by label, for the lines it still has; nil when it has none (emptied).
    package func read(_ text: String) throws(Problems) -> [String: String]? {
        var values: [String: String] = [:]
        var problems: [(number: Int, problem: String)] = []
        var current: String?
        var notes: [Substring]?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        for (index, line) in lines.enumerated() {
            if notes != nil {
                notes?.append(line)
                continue
            }
            if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
                current = nil
                continue
            }
            if line.hasPrefix("  "), let label = current {
                values[label, default: ""] += "\n" + line.dropFirst(2).trimmingTrailingWhitespaceAndNewlines()
                continue
            }
            guard let entry = entry(startingLine: line) else {
                let named = line.split(separator: ":", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
                problems.append(
                    (
                        index + 1,
                        line.contains(":")
                            ? ": the form has no field \"\(named)\"\(Suggestion.ending(for: named, in: entries.map(\.label)))"
                            : " is not \"Field: value\": \(TextCells.folded(String(line.prefix(40))))"
                    ))
                current = nil
                continue
            }
            let rest = line.dropFirst(entry.label.count + 1)
            let value = rest.hasPrefix(" ") ? rest.dropFirst() : rest
            guard values[entry.label] == nil else {
                problems.append((index + 1, ": \(entry.label) is given twice"))
                continue
            }
            if entry.key == .word(.notes) {
                notes = value.isEmpty ? [] : [value]
            } else {
                values[entry.label] = value.trimmingWhitespace()
                current = entry.label
            }
        }
        if let notes, let label = entries.last?.label {
            values[label] = notes.joined(separator: "\n").trimmingTrailingWhitespaceAndNewlines()
        }
        guard problems.isEmpty else { throw Problems(lines: problems) }
        return values.isEmpty ? nil : values
    }

    /// The entry a line gives a value to: the longest label it starts with, followed by a colon, in any case.
    private func entry(startingLine line: Substring) -> Entry? {
        let lowered = line.lowercased()
        return entries.filter { lowered.hasPrefix($0.label.lowercased() + ":") }.max {
            $0.label.count < $1.label.count
        }
    }

    /// The entries whose value `values` changes, each with its new text.
    package func changes(in values: [String: String]) -> [(entry: Entry, value: String)] {
        entries.compactMap { entry in
            guard let value = values[entry.label], value != Self.compared(entry) else { return nil }
            return (entry, value)
        }
    }

    /// A value as the form reads it back: notes without what they end with, other values without spaces at either end.
    package static func compared(_ entry: Entry) -> String {
        let value = entry.value.trimmingTrailingWhitespaceAndNewlines()
        return entry.key == .word(.notes) ? value : value.trimmingWhitespace()
    }

    /// The text of the entry called `label`, as the form reads it back.
    package func value(of label: String) -> String? { entries.first { $0.label == label }.map(Self.compared) }
}
