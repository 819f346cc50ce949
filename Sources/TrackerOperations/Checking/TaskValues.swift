import TrackerAPI
import TrackerModel

/// The values a task command was given, as typed.
package struct TaskValues: Equatable, Sendable {
    package var name: String?
    package var assignee: String?
    package var estimate: Double?
    package var notes: NotesSource?

    package init(name: String? = nil, assignee: String? = nil, estimate: Double? = nil, notes: NotesSource? = nil) {
        (self.name, self.assignee, self.estimate, self.notes) = (name, assignee, estimate, notes)
    }

    /// Reads `--assignee`, `--estimate` and `--notes`/`--notes-file`, refusing what needs no request to refuse.
    package init(_ scanned: ScannedArguments, name: String? = nil) throws {
        if let name {
            guard !name.isEmpty else { throw AppError.usage("the task's name is empty", command: "task") }
            try TextRules.refuseControlCharacters(name, flag: "the task's name", command: "task")
            self.name = name
        }
        assignee = try scanned.nonEmpty("--assignee")
        if let text = scanned.last("--estimate") {
            guard let days = DaysInput.days(text) else {
                throw AppError.usage(
                    "--estimate takes a number of days that is not negative (1.5, 0.5, 2d, 1w), not \"\(text)\"",
                    command: "task")
            }
            estimate = days
        }
        try scanned.rejectTogether("--notes", "--notes-file")
        if let text = scanned.last("--notes") {
            try TextRules.refuseControlCharacters(text, flag: "--notes", command: "task", allowingLineBreaks: true)
            notes = .text(text)
        }
        if let path = scanned.last("--notes-file") { notes = path == "-" ? .standardInput : .file(path) }
    }
}

extension Session {
    /// The Tasks table's field for `word`, or a usage error naming the flag and the field the table lacks.
    package func taskField(_ word: TaskWord, for flag: String, in layout: TaskLayout) throws -> String {
        guard let field = layout.fields[word] else {
            throw AppError.usage(
                "\(flag) needs the Tasks table's \"\(word.rawValue)\" field (\(word.templateName)), and \"\(layout.name)\" has none",
                command: "task")
        }
        return field
    }

    /// The cells for `values`, each checked against the Tasks table before anything is sent: the estimate against the
    /// field's precision, the assignee as `me`, an email or a unique collaborator, notes with no control characters.
    package func taskCells(_ values: TaskValues, layout: TaskLayout) async throws -> TaskWrite {
        var write = TaskWrite()
        if let name = values.name { write[.name] = .string(name) }
        if let estimate = values.estimate {
            let field = try taskField(.estimate, for: "--estimate", in: layout)
            // Without the schema the template's precision (one decimal place) is the stricter reading.
            let precision = layout.table?.field(named: field)?.precision ?? 1
            guard DaysInput.fits(estimate, precision: precision) else {
                let places = precision == 0 ? "whole days" : "\(precision) decimal place\(precision == 1 ? "" : "s")"
                throw AppError.usage(
                    "--estimate \(ProjectTask.days(estimate)): \(field) takes \(places)", command: "task")
            }
            write[.estimate] = .number(estimate)
        }
        if let notes = try readNotes(values.notes, command: "task") {
            try TextRules.refuseControlCharacters(
                notes, flag: "--notes-file", command: "task", allowingLineBreaks: true)
            _ = try taskField(.notes, for: "--notes", in: layout)
            write[.notes] = .string(notes)
        }
        if let assignee = values.assignee {
            _ = try taskField(.assignee, for: "--assignee", in: layout)
            write[.assignee] = try await self.assigneeCell(assignee)
        }
        return write
    }

    /// The collaborator cell for `--assignee`: the token's user for `me`, else an email or a unique collaborator's name.
    package func assigneeCell(_ typed: String) async throws -> JSONValue {
        if typed.lowercased() == "me" { return .object([("id", .string(try await self.knowledge.me()))]) }
        let checker = try await self.checker(command: "task")
        return try await checker.collaborators(for: [typed])[0]
    }
}
