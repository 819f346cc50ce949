import Foundation
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Checks what the user typed against the base and turns it into cells Airtable stores as meant, without `typecast`,
/// so nothing is created by a typo (cli-spec.md "Values tracker checks before writing" and "--set"): choices in their
/// own spelling, links as record ids, people as collaborators, every other field by its type.
///
/// Before a value is refused as unknown the schema is read again (once a command), so a choice or field added a moment
/// ago is accepted. What is looked up is remembered, and `prefetch` looks up the values of many rows in a few requests.
final class ValueChecker: Sendable {
    private let client: ProjectAPIClient
    private let knowledge: BaseKnowledge
    private let command: String
    private let today: CalendarDate
    private let timeZone: TimeZone
    private let current: Locked<TableLayout>
    private let categories = Locked<[String: Result<String, AppError>]>([:])
    private let links = Locked<[String: Result<String, AppError>]>([:])
    private let people = Locked<[String: Result<JSONValue, AppError>]>([:])
    /// Values looked up in one request.
    private static let chunk = 40

    init(
        client: ProjectAPIClient, knowledge: BaseKnowledge, layout: TableLayout, command: String, today: CalendarDate,
        timeZone: TimeZone
    ) {
        self.client = client
        self.knowledge = knowledge
        self.command = command
        self.today = today
        self.timeZone = timeZone
        self.current = Locked(layout)
    }

    /// The layout as last read: it changes when the schema is read again.
    var layout: TableLayout { current.withLock { $0 } }
    private var fields: FieldMap { layout.fields }

    /// Reads the schema again if this command has not; false when that cannot tell anything new.
    private func refresh() async throws -> Bool {
        guard let fresh = try await knowledge.refreshed() else { return false }
        current.withLock { $0 = fresh }
        return true
    }

    private func usage(_ text: String) -> AppError { .usage(text, command: command) }

    /// `--set Budget` or `--set "Owner email"`: a field named as it would be typed in a shell; with no flag (an
    /// import column), the name alone.
    static func naming(_ flag: String, _ field: String) -> String {
        let quoted = field.contains(where: { $0.isWhitespace || "\"'$&;|<>()".contains($0) }) ? "\"\(field)\"" : field
        return flag.isEmpty ? quoted : flag + " " + quoted
    }

    // MARK: - Writes

    /// Looks up the categories, links and people of all `inputs`, so `write` needs no request for them.
    func prefetch(_ inputs: [ProjectInput]) async throws {
        for category in Set(inputs.compactMap(\.category)) { _ = try? await self.category(category) }
        if let table = try? linkTarget(for: .client) {
            try await resolveLinks(Array(Set(inputs.flatMap { $0.clients ?? [] })), in: table)
        }
        try await resolvePeople(Array(Set(inputs.flatMap { ($0.lead.map { [$0] } ?? []) + ($0.team ?? []) })))
    }

    /// The cells for `input`, every value checked; `notes` is the text `input.notes` pointed at.
    func write(for input: ProjectInput, notes: String?) async throws -> ProjectWrite {
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
    func requireField(_ word: FieldMap.Word, for flag: String) throws -> String {
        try Runner.requireField(word, for: flag, in: fields, command: command)
    }

    /// What `done` (true) or `reopen` (false) writes in the completion field: a tick or the select's choice.
    func completionValue(_ complete: Bool, flag: String) throws -> JSONValue {
        switch fields.completion {
        case .checkbox?: return .bool(complete)
        case .select(_, let done, let open)?: return complete ? .string(done) : open.map(JSONValue.string) ?? .null
        case nil:
            throw usage(
                "\(flag) needs a completion field, and this base has none; map one in \"fields\": \"complete\": \"<checkbox>\" or {\"field\": \"Status\", \"done\": \"Done\"}"
            )
        }
    }

    /// A field of the base named in a file or on the command line (any case), reading the schema again once before
    /// saying the table has none; nil without the schema.
    func field(matching name: String) async throws -> BaseSchema.Field? {
        if let field = layout.field(matching: name) { return field }
        if try await refresh() { return layout.field(matching: name) }
        return nil
    }

    /// A field is written under its own name, or as tracker's word when it is one.
    func writeTarget(for field: BaseSchema.Field) -> ProjectWrite.Target {
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
    func value(_ text: String, for field: BaseSchema.Field, separator: Character = ",", flag: String = "--set")
        async throws -> JSONValue
    {
        if text.trimmingCharacters(in: .whitespaces).isEmpty {
            throw usage("\(flag) \(field.name)= is empty; to empty a field, use --clear \(Self.naming("", field.name))")
        }
        let typed = FieldInput.read(text, for: field, separator: separator, today: today, timeZone: timeZone)
        return try await resolve(typed, for: field, flag: flag)
    }

    /// A checked value made ready to send.
    func resolve(_ typed: Result<TypedValue, FieldProblem>, for field: BaseSchema.Field, flag: String) async throws
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
    func choice(_ typed: String, in fieldName: String, flag: String) async throws -> String {
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
    func category(_ typed: String) async throws -> String {
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

    // MARK: - Links

    /// Another table: its id (or name, without the schema) and its primary field.
    struct LinkTarget: Sendable {
        var table: String
        var primaryField: String
    }

    /// The table the client field links to and its primary field: from the schema, else the template's.
    func linkTarget(for word: FieldMap.Word) throws -> LinkTarget {
        let name = try requireField(word, for: word.flag)
        if let linked = layout.table?.field(named: name)?.linkedTableID {
            return try linkTarget(table: linked, field: name)
        }
        return LinkTarget(table: "Clients", primaryField: "Name")
    }

    private func linkTarget(table: String, field: String) throws -> LinkTarget {
        guard let linked = layout.schema?.table(table), let primary = linked.primaryField else {
            throw usage("\(field) links to a table tracker cannot read")
        }
        return LinkTarget(table: linked.id, primaryField: primary.name)
    }

    /// The record ids of the clients `values` name (names, any case, or ids), in order, each once.
    func clientIDs(_ values: [String]) async throws -> [String] {
        try await linkedIDs(values, in: try linkTarget(for: .client), what: "client")
    }

    /// The record ids `values` name (names, any case, or ids) in `target`'s table, in order, each once.
    func linkedIDs(_ values: [String], in target: LinkTarget, what: String) async throws -> [String] {
        try await resolveLinks(values, in: target)
        let ids = try values.map { value in try links.withLock { $0[target.table + "\u{0}" + value]! }.get() }
        return ids.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Resolves the values not yet known, from remembered names first, then a few dozen a request.
    private func resolveLinks(_ values: [String], in target: LinkTarget) async throws {
        let key = { (value: String) in target.table + "\u{0}" + value }
        let remembered = knowledge.recordNames(in: target.table).map { LinkedRecord(id: $0.key, name: $0.value) }
        for value in values where links.withLock({ $0[key(value)] == nil }) {
            let matches = ProjectNaming.matches(of: value, in: remembered, id: \.id, name: \.name)
            if matches.count == 1 { links.withLock { $0[key(value)] = .success(matches[0].id) } }
        }
        let missing = values.filter { value in links.withLock { $0[key(value)] == nil } }
        for batch in missing.chunked(into: Self.chunk) {
            let terms = batch.flatMap { Formula.idOrName($0, nameField: target.primaryField) }
            let found = try await client.linkedRecords(
                in: target.table, primaryField: target.primaryField, matching: Formula.any(terms), limit: 1000
            ).get()
            knowledge.remember(records: found, in: target.table)
            for value in batch {
                let result = await pickLink(value, from: found, in: target)
                links.withLock { $0[key(value)] = result }
            }
        }
    }

    private func pickLink(_ value: String, from found: [LinkedRecord], in target: LinkTarget) async
        -> Result<String, AppError>
    {
        let matches = ProjectNaming.matches(of: value, in: found, id: \.id, name: \.name)
        let isClient = target.table == (try? linkTarget(for: .client))?.table
        let what = isClient ? "client" : "record of the linked table"
        switch matches.count {
        case 1: return .success(matches[0].id)
        case 0:
            let names =
                (try? await client.linkedNames(
                    resembling: value, in: target.table, primaryField: target.primaryField
                ).get()) ?? []
            let guess = Suggestion.question(ProjectNaming.closest(to: value, among: names)).map { " " + $0 } ?? ""
            return .failure(usage("unknown \(what) \"\(value)\" (tracker never creates one).\(guess)"))
        default:
            return .failure(
                usage(
                    "\(matches.count) \(isClient ? "clients" : "records") are named \"\(value)\": "
                        + matches.map(\.id).joined(separator: ", ") + "; pass one of the ids"))
        }
    }

    // MARK: - People

    /// The collaborator cell for each of `people`: an email as given, or the one collaborator with that name among
    /// the leads and teams of the table's projects.
    func collaborators(for people: [String]) async throws -> [JSONValue] {
        try await resolvePeople(people)
        return try people.map { person in try self.people.withLock { $0[person]! }.get() }
    }

    /// Looks up the names not yet known among the projects' leads and teams (and `alsoIn`), a few dozen names a
    /// request; names found before are remembered.
    private func resolvePeople(_ values: [String], alsoIn extra: String? = nil) async throws {
        for person in values where person.contains("@") {
            people.withLock { $0[person] = .success(.object([("email", .string(person))])) }
        }
        for person in values where !person.contains("@") {
            if let cell = knowledge.person(named: person) { people.withLock { $0[person] = .success(cell) } }
        }
        let missing = values.filter { value in !value.contains("@") && people.withLock { $0[value] == nil } }
        let single = [fields[.lead]].compactMap { $0 }
        let multiple = [fields[.team], extra].compactMap { $0 }
        for batch in missing.chunked(into: Self.chunk) {
            let terms = batch.flatMap { name in
                let literal = "LOWER(\(Formula.literal(name)))"
                return single.map { Formula.equalsIgnoringCase($0, name) }
                    + multiple.map { "FIND(\(literal), LOWER(\(Formula.field($0))))" }
            }
            let projects =
                terms.isEmpty
                ? []
                : try await client.projects(
                    matching: Formula.any(terms), limit: 100 * batch.count, fields: single + multiple
                ).get()
            let seen = projects.flatMap { project in
                (project.lead.map { [$0] } ?? []) + project.team
                    + project.otherFields.filter { $0.name == extra }.flatMap { Self.collaborators(in: $0.value) }
            }
            var found: [String: JSONValue] = [:]
            for name in batch {
                let result = pickPerson(name, from: seen)
                if case .success(let cell) = result { found[name] = cell }
                people.withLock { $0[name] = result }
            }
            knowledge.remember(people: found)
        }
    }

    private static func collaborators(in value: JSONValue) -> [Collaborator] {
        (value.arrayValue ?? [value]).map {
            Collaborator(name: $0["name"]?.stringValue, email: $0["email"]?.stringValue)
        }
    }

    private func pickPerson(_ name: String, from seen: [Collaborator]) -> Result<JSONValue, AppError> {
        var matches: [Collaborator] = []
        for person in seen where person.name?.lowercased() == name.lowercased() {
            if !matches.contains(where: { ($0.id ?? $0.email) == (person.id ?? person.email) }) {
                matches.append(person)
            }
        }
        switch matches.count {
        case 1:
            let person = matches[0]
            return .success(
                person.email.map { .object([("email", .string($0))]) } ?? .object([("id", .string(person.id ?? ""))]))
        case 0:
            return .failure(
                usage("no collaborator named \"\(name)\" leads or works on a project of this table; give their email"))
        default:
            return .failure(
                usage(
                    "\(matches.count) collaborators are named \"\(name)\": "
                        + matches.map { $0.email ?? $0.id ?? "?" }.joined(separator: ", ") + "; give one email"))
        }
    }
}

extension Array {
    /// The one element, nil when there are none or several.
    var onlyElement: Element? { count == 1 ? first : nil }
}
