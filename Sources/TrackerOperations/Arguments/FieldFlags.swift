#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// The flags of a project's fields, which `add` and `update` share.
extension ScannedArguments {
    /// The values of a project's field flags, shared by `add` and `update`, checked as far as no request is needed.
    package func projectInput(today: CalendarDate) throws -> ProjectInput {
        let scanned = self
        let command = scanned.command?.name
        func text(_ flag: String) throws -> String? {
            guard let value = try scanned.nonEmpty(flag) else { return nil }
            try TextRules.refuseControlCharacters(value, flag: flag, command: command)
            return value
        }
        /// A name, email or id given to a flag, without the spaces around it.
        func item(_ flag: String, _ value: String) throws -> String {
            let trimmed = value.trimmingWhitespace()
            guard !trimmed.isEmpty else { throw AppError.usage("\(flag) must not be empty", command: command) }
            try TextRules.refuseControlCharacters(trimmed, flag: flag, command: command)
            return trimmed
        }
        func person(_ flag: String, _ value: String) throws -> String {
            let trimmed = try item(flag, value)
            guard trimmed.contains("@") else { return trimmed }
            let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !trimmed.contains(" ") else {
                throw AppError.usage("\(flag) '\(value)' is not an email address", command: command)
            }
            return trimmed
        }
        try scanned.rejectTogether("--notes", "--notes-file")
        try scanned.rejectTogether("--complete", "--incomplete")
        var input = ProjectInput(
            name: try text("--name"), due: try scanned.date("--due", today: today),
            kickoff: try scanned.date("--kickoff", today: today), category: try text("--category"),
            lead: try scanned.last("--lead").map { try person("--lead", $0) },
            team: scanned.has("--team") ? try scanned.all("--team").map { try person("--team", $0) } : nil,
            clients: scanned.has("--client") ? try scanned.all("--client").map { try item("--client", $0) } : nil,
            complete: scanned.has("--complete") ? true : scanned.has("--incomplete") ? false : nil)
        if let text = scanned.last("--notes") {
            try TextRules.refuseControlCharacters(text, flag: "--notes", command: command, allowingLineBreaks: true)
            input.notes = .text(text)
        }
        if let path = scanned.last("--notes-file") { input.notes = path == "-" ? .standardInput : .file(path) }
        (input.cleared, input.clearedFields) = try cleared(input: input)
        input.assignments = try scanned.all("--set").map { try assignment($0, command: command) }
        return input
    }

    /// `--set FIELD=VALUE`: split at the first `=`; the field must be named, the value may hold anything.
    private func assignment(_ text: String, command: String?) throws -> FieldAssignment {
        guard let equals = text.firstIndex(of: "=") else {
            throw AppError.usage("--set needs FIELD=VALUE, e.g. --set Budget=1200, not '\(text)'", command: command)
        }
        let field = text[..<equals].trimmingWhitespace()
        guard !field.isEmpty else { throw AppError.usage("--set '\(text)' names no field", command: command) }
        try TextRules.refuseControlCharacters(field, flag: "--set", command: command)
        return FieldAssignment(field: field, value: String(text[text.index(after: equals)...]))
    }

    /// `--clear kickoff,notes,Budget` (repeatable): tracker's words and the base's own fields to empty, none of the
    /// words also given a value. Field names are checked against the base when the command runs.
    private func cleared(input: ProjectInput) throws -> (
        [FieldMap.Word], [String]
    ) {
        var words: [FieldMap.Word] = []
        var fields: [String] = []
        for value in all("--clear") {
            for item in value.split(separator: ",").map({ $0.trimmingWhitespace() }) where !item.isEmpty {
                if let word = FieldMap.Word(rawValue: item.lowercased()) {
                    guard word != .name else {
                        throw AppError.usage("--clear cannot empty name: every project needs one", command: "update")
                    }
                    if !words.contains(word) { words.append(word) }
                } else {
                    try TextRules.refuseControlCharacters(item, flag: "--clear", command: "update")
                    if !fields.contains(item) { fields.append(item) }
                }
            }
        }
        let given: [FieldMap.Word: Bool] = [
            .kickoff: input.kickoff != nil, .lead: input.lead != nil, .team: input.team != nil,
            .client: input.clients != nil, .notes: input.notes != nil, .category: input.category != nil,
            .due: input.due != nil, .complete: input.complete != nil,
        ]
        if let both = words.first(where: { given[$0] == true }) {
            let flag = both == .complete ? (input.complete == true ? "--complete" : "--incomplete") : both.flag
            throw AppError.usage("\(flag) and --clear \(both.rawValue) cannot be used together", command: "update")
        }
        return (words, fields)
    }
}
