#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Checks what the user typed against the base and turns it into cells Airtable stores as meant, without `typecast`,
/// so nothing is created by a typo (docs/contract.md "Values tracker checks before writing" and "--set"): choices in
/// their
/// own spelling, links as record ids, people as collaborators, every other field by its type.
///
/// Before a value is refused as unknown the schema is read again (once a command), so a choice or field added a moment
/// ago is accepted. What is looked up is remembered, and `prefetch` looks up the values of many rows in a few requests.
package final class ValueChecker: Sendable {
    package let client: ProjectAPIClient
    package let knowledge: BaseKnowledge
    private let command: String
    private let today: CalendarDate
    private let timeZone: Zone
    private let current: Locked<TableLayout>
    private let categories = Locked<[String: Result<String, AppError>]>([:])
    package let links = Locked<[String: Result<String, AppError>]>([:])
    package let people = Locked<[String: Result<JSONValue, AppError>]>([:])
    /// Values looked up in one request.
    package static let chunk = 40

    package init(
        client: ProjectAPIClient, knowledge: BaseKnowledge, layout: TableLayout, command: String, today: CalendarDate,
        timeZone: Zone
    ) {
        self.client = client
        self.knowledge = knowledge
        self.command = command
        self.today = today
        self.timeZone = timeZone
        self.current = Locked(layout)
    }

    /// The layout as last read: it changes when the schema is read again.
    package var layout: TableLayout { current.withLock { $0 } }
    package var fields: FieldMap { layout.fields }

    /// Reads the schema again if this command has not; false when that cannot tell anything new.
    package func refresh() async throws -> Bool {
        guard let fresh = try await knowledge.refreshed() else { return false }
        current.withLock { $0 = fresh }
        return true
    }

    package func usage(_ text: String) -> AppError { .usage(text, command: command) }

    /// `--set Budget` or `--set "Owner email"`: a field named as it would be typed in a shell; with no flag (an
    /// import column), the name alone.
    package static func naming(_ flag: String, _ field: String) -> String {
        let quoted = field.contains(where: { $0.isWhitespace || "\"'$&;|<>()".contains($0) }) ? "\"\(field)\"" : field
        return flag.isEmpty ? quoted : flag + " " + quoted
    }

    // MARK: - Writes

    /// Looks up the categories, links and people of all `inputs`, so `write` needs no request for them.
    package func prefetch(_ inputs: [ProjectInput]) async throws {
        for category in Set(inputs.compactMap(\.category)) { _ = try? await self.category(category) }
        if let table = try? linkTarget(for: .client) {
            try await resolveLinks(Array(Set(inputs.flatMap { $0.clients ?? [] })), in: table)
        }
        try await resolvePeople(Array(Set(inputs.flatMap { ($0.lead.map { [$0] } ?? []) + ($0.team ?? []) })))
    }

    /// The cells for `input`, every value checked; `notes` is the text `input.notes` pointed at.
    package func write(for input: ProjectInput, notes: String?) async throws -> ProjectWrite {
        var write = ProjectWrite()
        func need(_ word: FieldMap.Word, _ flag: String) throws {
            _ = try requireField(word, for: flag)
        }
        if let name = input.name { write[.name] = .string(name) }
        if let due = input.due {
            try need(.due, "--due")
            write[.due] = .string(due.description)
        }
        if let kickoff = input.kickoff {
            try need(.kickoff, "--kickoff")
            write[.kickoff] = .string(kickoff.description)
        }
        if let category = input.category {
            try need(.category, "--category")
            write[.category] = .string(try await self.category(category))
        }
        if input.lead != nil { try need(.lead, "--lead") }
        if input.team != nil { try need(.team, "--team") }
        // Names of the lead and the team are looked up together, in one request.
        try await resolvePeople((input.lead.map { [$0] } ?? []) + (input.team ?? []))
        if let lead = input.lead { write[.lead] = try await collaborators(for: [lead])[0] }
        if let team = input.team { write[.team] = .array(try await collaborators(for: team)) }
        if let clients = input.clients { write[.client] = .array(try await clientIDs(clients).map(JSONValue.string)) }
        if let notes {
            try need(.notes, "--notes")
            let flag = if case .text = input.notes { "--notes" } else { "--notes-file" }
            try TextRules.refuseControlCharacters(notes, flag: flag, command: command, allowingLineBreaks: true)
            write[.notes] = .string(notes)
        }
        if let complete = input.complete {
            write[.complete] = try completionValue(complete, flag: complete ? "--complete" : "--incomplete")
        }
        for word in input.cleared {
            try need(word, "--clear \(word.rawValue)")
            write[word] = .null
        }
        for name in input.clearedFields {
            let field = try await writableField(name, flag: "--clear")
            write[writeTarget(for: field)] = field.type == "checkbox" ? .bool(false) : .null
        }
        // The last value given for a field wins, whatever case its name was typed in.
        var assignments: [(field: BaseSchema.Field, text: String)] = []
        for assignment in input.assignments {
            let field = try await writableField(assignment.field, flag: "--set")
            assignments.removeAll { $0.field.name == field.name }
            assignments.append((field, assignment.value))
        }
        for (field, text) in assignments {
            let target = writeTarget(for: field)
            if write[target] != nil {
                throw usage("--set \(field.name) and another flag both give \"\(field.name)\" a value; give it once")
            }
            write[target] = try await value(text, for: field)
        }
        return write
    }

    /// A word's field, or a usage error naming the flag and the field this base lacks.
    package func requireField(_ word: FieldMap.Word, for flag: String) throws -> String {
        try fields.required(word, for: flag, command: command)
    }

    /// What `done` (true) or `reopen` (false) writes in the completion field: a tick or the select's choice.
    package func completionValue(_ complete: Bool, flag: String) throws -> JSONValue {
        switch fields.completion {
        case let completion?: return completion.value(complete: complete)
        case nil:
            throw usage(
                "\(flag) needs a completion field, and this base has none; map one in \"fields\": \"complete\": \"<checkbox>\" or {\"field\": \"Status\", \"done\": \"Done\"}"
            )
        }
    }

    /// A field of the base named in a file or on the command line (any case), reading the schema again once before
    /// saying the table has none; nil without the schema.
    package func field(matching name: String) async throws -> BaseSchema.Field? {
        if let field = layout.field(matching: name) { return field }
        if try await refresh() { return layout.field(matching: name) }
        return nil
    }

    /// A field is written under its own name, or as tracker's word when it is one.
    package func writeTarget(for field: BaseSchema.Field) -> ProjectWrite.Target {
        fields.word(forFieldNamed: field.name).flatMap { fields[$0] == field.name ? .word($0) : nil }
            ?? .field(field.name)
    }

    // MARK: - The base's own fields

    /// The field `name` names (any case), one Airtable lets tracker write.
    private func writableField(_ name: String, flag: String) async throws -> BaseSchema.Field {
        if layout.table == nil { _ = try await refresh() }
        guard layout.table != nil else {
            throw AppError.schemaUnreadable(
                "\(flag) \(name) is checked against the base's schema, which the token may not read")
        }
        var field = layout.field(matching: name)
        if field == nil, try await refresh() { field = layout.field(matching: name) }
        guard let field else {
            let names = layout.table?.fields.map(\.name) ?? []
            let guess = Suggestion.ending(for: name, in: names)
            throw usage("\(flag): the table has no field \"\(name)\".\(guess) 'tracker doctor' lists its fields")
        }
        if let refusal = FieldInput.refusal(field) { throw usage("\(Self.naming(flag, field.name)): \(refusal)") }
        return field
    }

    /// `text` for `field`, by its type: checked, and selects, people and links looked up.
    package func value(_ text: String, for field: BaseSchema.Field, separator: Character = ",", flag: String = "--set")
        async throws -> JSONValue
    {
        if text.trimmingWhitespace().isEmpty {
            throw usage("\(flag) \(field.name)= is empty; to empty a field, use --clear \(Self.naming("", field.name))")
        }
        let typed = FieldInput.read(text, for: field, separator: separator, today: today, timeZone: timeZone)
        return try await resolve(typed, for: field, flag: flag)
    }

    /// A checked value made ready to send.
    package func resolve(_ typed: Result<TypedValue, FieldProblem>, for field: BaseSchema.Field, flag: String)
        async throws
        -> JSONValue
    {
        switch typed {
        case .failure(let problem): throw usage("\(Self.naming(flag, field.name)): \(problem.message)")
        case .success(.ready(let value)): return value
        case .success(.choice(let typed)): return .string(try await choice(typed, in: field.name, flag: flag))
        case .success(.choices(let typed)):
            var chosen: [String] = []
            for item in typed {
                let choice = try await choice(item, in: field.name, flag: flag)
                if !chosen.contains(choice) { chosen.append(choice) }
            }
            return .array(chosen.map(JSONValue.string))
        case .success(.people(let names, let multiple)):
            try await resolvePeople(names, alsoIn: field.name)
            let cells = try await collaborators(for: names)
            return multiple ? .array(cells) : cells[0]
        case .success(.links(let values, let table)):
            let target = try linkTarget(table: table, field: field.name)
            return .array(try await linkedIDs(values, in: target, what: "record").map(JSONValue.string))
        }
    }

    /// The select field's choice that `typed` names (exactly, else the one ignoring case), in the base's spelling.
    package func choice(_ typed: String, in fieldName: String, flag: String) async throws -> String {
        func match() -> String? {
            let choices = layout.table?.field(named: fieldName)?.choices ?? []
            return choices.first { $0 == typed }
                ?? choices.filter { $0.lowercased() == typed.lowercased() }.onlyElement
        }
        if let found = match() { return found }
        if try await refresh(), let found = match() { return found }
        let choices = layout.table?.field(named: fieldName)?.choices ?? []
        let listed =
            choices.isEmpty ? "it has none" : "the choices are " + choices.map { "\"\($0)\"" }.joined(separator: ", ")
        throw usage(
            "\(Self.naming(flag, fieldName)): \"\(typed)\" is not a choice; \(listed).\(Suggestion.ending(for: typed, in: choices)) tracker never adds one"
        )
    }

    // MARK: - Category

    /// The table's category that `typed` names ignoring case, in the choice's own spelling.
    package func category(_ typed: String) async throws -> String {
        if let known = categories.withLock({ $0[typed] }) { return try known.get() }
        let result: Result<String, AppError>
        do {
            result = .success(try await lookUpCategory(typed))
        } catch let error as AppError {
            guard case .usage = error else { throw error }
            result = .failure(error)
        }
        categories.withLock { $0[typed] = result }
        return try result.get()
    }

    private func lookUpCategory(_ typed: String) async throws -> String {
        let name = try requireField(.category, for: "--category")
        let choices: [String]
        if layout.table != nil {
            if let found = try? await choice(typed, in: name, flag: "--category") { return found }
            choices = layout.table?.field(named: name)?.choices ?? []
        } else {
            // Without the schema, the categories are what the table's projects hold.
            let match = try await client.projects(
                matching: Formula.equalsIgnoringCase(name, typed), limit: 1, fields: [name]
            ).get()
            if let spelled = match.first?.category { return spelled }
            let seen = try await client.projects(
                matching: "NOT(\(Formula.field(name)) = '')", limit: 1000, fields: [name]
            ).get()
            choices = Array(Set(seen.compactMap(\.category))).sorted()
        }
        let listed = choices.isEmpty ? "the table has none" : choices.map { "\"\($0)\"" }.joined(separator: ", ")
        let guess = Suggestion.ending(for: typed, in: choices)
        throw usage("unknown category \"\(typed)\"; the choices are \(listed).\(guess)")
    }

}

extension Array {
    /// The one element, nil when there are none or several.
    package var onlyElement: Element? { count == 1 ? first : nil }
}

extension FieldMap {
    /// A word's field, or a usage error naming the flag and the field this base lacks.
    package func required(_ word: FieldMap.Word, for flag: String, command: String?) throws -> String {
        guard let name = self[word] else {
            throw AppError.usage(
                "\(flag) needs the \(word.rawValue) field, and this base has none (\"\(word.rawValue)\" is null in \"fields\", or the table has no \"\(word.templateName)\")",
                command: command)
        }
        return name
    }
}
