/// Checks what the user typed against the base and turns it into cells Airtable stores as meant, without `typecast`,
/// so nothing is created by a typo (cli-spec.md "Values tracker checks before writing"): a category in its choice's
/// own spelling, clients as record ids, people as collaborators.
final class ValueChecker: Sendable {
    private let client: ProjectAPIClient
    private let command: String
    /// The base's schema, read at most once; nil inside when the token may not read it.
    private let schema = Locked<BaseSchema??>(nil)

    init(client: ProjectAPIClient, command: String) {
        self.client = client
        self.command = command
    }

    private var fields: FieldMap { client.fields }

    /// The cells for `input`, every value checked; `notes` is the text `input.notes` pointed at.
    func write(for input: ProjectInput, notes: String?) async throws -> ProjectWrite {
        var write = ProjectWrite()
        if let name = input.name { write[.name] = .string(name) }
        if let due = input.due { write[.due] = .string(due.description) }
        if let kickoff = input.kickoff { write[.kickoff] = .string(kickoff.description) }
        if let category = input.category { write[.category] = .string(try await self.category(category)) }
        let people = try await collaborators(for: (input.lead.map { [$0] } ?? []) + (input.team ?? []))
        if let lead = input.lead { write[.lead] = people[lead] }
        if let team = input.team { write[.team] = .array(team.compactMap { people[$0] }) }
        if let clients = input.clients { write[.client] = .array(try await clientIDs(clients).map(JSONValue.string)) }
        if let notes {
            let flag = if case .text = input.notes { "--notes" } else { "--notes-file" }
            try TextRules.refuseControlCharacters(notes, flag: flag, command: command, allowingLineBreaks: true)
            write[.notes] = .string(notes)
        }
        if let complete = input.complete { write[.complete] = .bool(complete) }
        for word in input.cleared { write[word] = .null }
        return write
    }

    // MARK: - Category

    /// The table's choice that `typed` names ignoring case, in the choice's own spelling.
    func category(_ typed: String) async throws -> String {
        let choices: [String]
        if let field = try await projectsTable()?.field(named: fields[.category]) {
            choices = field.choices
        } else {
            // Without the schema, the categories are what the table's projects hold.
            let field = Formula.field(fields[.category])
            let match = try await client.projects(
                matching: "LOWER(\(field)) = LOWER(\(Formula.literal(typed)))", limit: 1, fields: [fields[.category]]
            ).get()
            if let spelled = match.first?.category { return spelled }
            let seen = try await client.projects(
                matching: "NOT(\(field) = '')", limit: 1000, fields: [fields[.category]]
            ).get()
            choices = Array(Set(seen.compactMap(\.category))).sorted()
        }
        if let choice = choices.first(where: { $0 == typed })
            ?? choices.first(where: { $0.lowercased() == typed.lowercased() })
        {
            return choice
        }
        let listed = choices.isEmpty ? "the table has none" : choices.map { "\"\($0)\"" }.joined(separator: ", ")
        let guess = Suggestion.closest(to: typed, in: choices).map { " Did you mean \"\($0)\"?" } ?? ""
        throw AppError.usage("unknown category \"\(typed)\"; the choices are \(listed).\(guess)", command: command)
    }

    // MARK: - Clients

    /// The record ids of the clients named by `values` (names, any case, or ids), in one request.
    func clientIDs(_ values: [String]) async throws -> [String] {
        guard !values.isEmpty else { return [] }
        let (table, primary) = try await clientsTable()
        let name = "LOWER(\(Formula.field(primary)))"
        let terms = values.flatMap { value in
            (ProjectAPIClient.looksLikeRecordID(value) ? ["RECORD_ID() = \(Formula.literal(value))"] : [])
                + ["\(name) = LOWER(\(Formula.literal(value)))"]
        }
        let found = try await client.linkedRecords(
            in: table, primaryField: primary,
            matching: terms.count == 1 ? terms[0] : "OR(\(terms.joined(separator: ", ")))"
        ).get()
        var ids: [String] = []
        for value in values {
            if let byID = found.first(where: { $0.id == value }) {
                ids.append(byID.id)
                continue
            }
            let exact = found.filter { $0.name == value }
            let matches = exact.isEmpty ? found.filter { $0.name?.lowercased() == value.lowercased() } : exact
            switch matches.count {
            case 1: ids.append(matches[0].id)
            case 0:
                let close = ProjectNaming.closest(
                    to: value,
                    among: (try? await client.linkedNames(resembling: value, in: table, primaryField: primary).get())
                        ?? [])
                let guess =
                    close.isEmpty ? "" : " Did you mean " + close.map { "\"\($0)\"" }.joined(separator: " or ") + "?"
                throw AppError.usage(
                    "unknown client \"\(value)\" (tracker never creates one).\(guess)", command: command)
            default:
                throw AppError.usage(
                    "\(matches.count) clients are named \"\(value)\": "
                        + matches.map(\.id).joined(separator: ", ") + "; pass one of the ids", command: command)
            }
        }
        return ids.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The table the client field links to and its primary field: from the schema, else the template's.
    private func clientsTable() async throws -> (table: String, primaryField: String) {
        if let base = try await baseSchema(),
            let linkedID = projectsTable(in: base)?.field(named: fields[.client])?.linkedTableID,
            let linked = base.table(linkedID), let primary = linked.primaryField
        {
            return (linked.id, primary.name)
        }
        return ("Clients", "Name")
    }

    // MARK: - People

    /// The collaborator cell for each of `people`: an email as given, or the one collaborator with that name among
    /// the leads and teams of the table's projects (found in one request for all names).
    func collaborators(for people: [String]) async throws -> [String: JSONValue] {
        var cells: [String: JSONValue] = [:]
        for person in people where person.contains("@") { cells[person] = .object([("email", .string(person))]) }
        let names = people.filter { !$0.contains("@") }
        guard !names.isEmpty else { return cells }
        let lead = "LOWER(\(Formula.field(fields[.lead])))"
        let team = "LOWER(\(Formula.field(fields[.team])))"
        let terms = names.flatMap { name in
            let literal = "LOWER(\(Formula.literal(name)))"
            return ["\(lead) = \(literal)", "FIND(\(literal), \(team))"]
        }
        let projects = try await client.projects(
            matching: "OR(\(terms.joined(separator: ", ")))", limit: 100, fields: [fields[.lead], fields[.team]]
        ).get()
        let seen = projects.flatMap { ($0.lead.map { [$0] } ?? []) + $0.team }
        for name in names {
            var matches: [Collaborator] = []
            for person in seen where person.name?.lowercased() == name.lowercased() {
                if !matches.contains(where: { ($0.id ?? $0.email) == (person.id ?? person.email) }) {
                    matches.append(person)
                }
            }
            switch matches.count {
            case 1:
                let person = matches[0]
                cells[name] =
                    person.email.map { .object([("email", .string($0))]) }
                    ?? .object([("id", .string(person.id ?? ""))])
            case 0:
                throw AppError.usage(
                    "no collaborator named \"\(name)\" leads or works on a project of this table; give their email",
                    command: command)
            default:
                throw AppError.usage(
                    "\(matches.count) collaborators are named \"\(name)\": "
                        + matches.map { $0.email ?? $0.id ?? "?" }.joined(separator: ", ") + "; give one email",
                    command: command)
            }
        }
        return cells
    }

    // MARK: - Schema

    private func baseSchema() async throws -> BaseSchema? {
        if let cached = schema.withLock({ $0 }) { return cached }
        let read = try await client.schema().get()
        schema.withLock { $0 = .some(read) }
        return read
    }

    private func projectsTable() async throws -> BaseSchema.Table? {
        try await baseSchema().flatMap(projectsTable(in:))
    }

    private func projectsTable(in base: BaseSchema) -> BaseSchema.Table? {
        base.table(client.configuration.table)
    }
}
