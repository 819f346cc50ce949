import TrackerModel

/// The text form `tracker edit --task` hands to the editor: `#` lines saying what this is, one `Label: value` line per
/// field of the Tasks table tracker writes, the notes last as a block. Read back, each field's text is compared as text
/// with what was opened.
package struct TaskEditForm: Equatable {
    /// The fields on the form, in order; notes (when the table has them) come last as a block.
    package let words: [TaskWord]
    /// Each field's text as opened.
    package let values: [TaskWord: String]
    package let title: String

    package static func label(_ word: TaskWord) -> String {
        switch word {
        case .name: "Name"
        case .assignee: "Assignee"
        case .estimate: "Estimate"
        case .complete: "Completed"
        case .notes: "Notes"
        case .project: "Project"
        }
    }

    package init(task: ProjectTask, layout: TaskLayout, projectName: String?) {
        title =
            "Task \"\(TextCells.folded(task.name ?? task.id))\" (\(task.id))"
            + (projectName.map { " in \"\(TextCells.folded($0))\"" } ?? "")
        let shown = [TaskWord.name, .assignee, .estimate, .complete, .notes].filter { layout.fields[$0] != nil }
        words = shown
        var values: [TaskWord: String] = [:]
        values[.name] = task.name ?? ""
        values[.assignee] = task.assignee.map { $0.email ?? $0.name ?? $0.id ?? "" } ?? ""
        values[.estimate] = task.estimate.map(ProjectTask.days) ?? ""
        values[.complete] = task.isComplete ? "yes" : "no"
        values[.notes] = task.notes ?? ""
        self.values = values.filter { shown.contains($0.key) }
    }

    /// The form as the editor shows it.
    package func text() -> String {
        var out = "# \(title). Change what you like, save and quit to write it;\n"
        out += "# empty the file to change nothing. Assignee: an email, a collaborator's name, or me.\n"
        out += "# Estimate: days (1.5, 2d, 1w). Completed: yes or no.\n"
        for word in words where word != .notes { out += "\(Self.label(word)): \(values[word] ?? "")\n" }
        if words.contains(.notes) { out += "Notes:\n" + (values[.notes].map { $0.isEmpty ? "" : $0 + "\n" } ?? "") }
        return out
    }

    /// Each field's text as the form now says; nil when it was emptied. A line that is no field of the form is a
    /// problem naming its number.
    package func read(_ text: String) throws -> [TaskWord: String]? {
        var found: [TaskWord: String] = [:]
        var problems: [(number: Int, problem: String)] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        var sawAnything = false
        while index < lines.count {
            let line = lines[index]
            defer { index += 1 }
            if line.hasPrefix("#") || line.trimmingWhitespace().isEmpty { continue }
            sawAnything = true
            guard let colon = line.firstIndex(of: ":") else {
                problems.append((index + 1, ": \"\(TextCells.folded(line))\" is not Label: value"))
                continue
            }
            let label = line[..<colon].trimmingWhitespace()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            guard let word = words.first(where: { Self.label($0).lowercased() == label.lowercased() }) else {
                problems.append((index + 1, ": the form has no field \"\(TextCells.folded(label))\""))
                continue
            }
            if word == .notes {
                // The block runs to the end; one trailing line break is the file's, not the notes'.
                var block = ([value].filter { !$0.isEmpty } + lines[(index + 1)...]).joined(separator: "\n")
                while block.hasSuffix("\n") { block.removeLast() }
                found[.notes] = block
                index = lines.count
                continue
            }
            found[word] = value
        }
        guard problems.isEmpty else { throw EditForm.Problems(lines: problems) }
        return sawAnything ? found : nil
    }

    /// The fields whose text differs from what was opened, in the form's order.
    package func changes(in read: [TaskWord: String]) -> [(word: TaskWord, value: String)] {
        words.compactMap { word in
            guard let value = read[word], value != (values[word] ?? "") else { return nil }
            return (word, value)
        }
    }
}
