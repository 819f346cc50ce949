/// Checks what the user typed against the base and turns it into cells Airtable stores as meant, without `typecast`,
/// so nothing is created by a typo (cli-spec.md "Values tracker checks before writing"): a category in its choice's
/// own spelling, clients as record ids, people as collaborators.
///
/// Everything looked up is remembered, and `prefetch` looks up the values of many rows in a few requests.
final class ValueChecker: Sendable {
    private let client: ProjectAPIClient
    private let command: String
    /// The base's schema, read at most once; nil inside when the token may not read it.
    private let schema = Locked<BaseSchema??>(nil)
    private let categories = Locked<[String: Result<String, AppError>]>([:])
    private let clients = Locked<[String: Result<String, AppError>]>([:])
    private let people = Locked<[String: Result<JSONValue, AppError>]>([:])
    /// Values looked up in one request.
    private static let chunk = 40

    init(client: ProjectAPIClient, command: String) {
        self.client = client
        self.command = command
    }

    private var fields: FieldMap { client.fields }

    /// Looks up the categories, clients and people of all `inputs`, so `write` needs no request for them.
    func prefetch(_ inputs: [ProjectInput]) async throws {
        for category in Set(inputs.compactMap(\.category)) { _ = try? await self.category(category) }
        try await resolveClients(Array(Set(inputs.flatMap { $0.clients ?? [] })))
        try await resolvePeople(Array(Set(inputs.flatMap { ($0.lead.map { [$0] } ?? []) + ($0.team ?? []) })))
    }

    /// The cells for `input`, every value checked; `notes` is the text `input.notes` pointed at.
    func write(for input: ProjectInput, notes: String?) async throws -> ProjectWrite {
        var write = ProjectWrite()
        if let name = input.name { write[.name] = .string(name) }
        if let due = input.due { write[.due] = .string(due.description) }
        if let kickoff = input.kickoff { write[.kickoff] = .string(kickoff.description) }
        if let category = input.category { write[.category] = .string(try await self.category(category)) }
        // Names of the lead and the team are looked up together, in one request.
        try await resolvePeople((input.lead.map { [$0] } ?? []) + (input.team ?? []))
        if let lead = input.lead { write[.lead] = try await collaborators(for: [lead])[0] }
        if let team = input.team { write[.team] = .array(try await collaborators(for: team)) }
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
        let choices: [String]
        if let field = try await projectsTable()?.field(named: fields[.category]) {
            choices = field.choices
        } else {
            // Without the schema, the categories are what the table's projects hold.
            let field = Formula.field(fields[.category])
            let match = try await client.projects(
                matching: Formula.equalsIgnoringCase(fields[.category], typed), limit: 1, fields: [fields[.category]]
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
        let guess = Suggestion.ending(for: typed, in: choices)
        throw AppError.usage("unknown category \"\(typed)\"; the choices are \(listed).\(guess)", command: command)
    }

    // MARK: - Clients

    /// The record ids of the clients named by `values` (names, any case, or ids).
    func clientIDs(_ values: [String]) async throws -> [String] {
        try await resolveClients(values)
        let ids = try values.map { value in try clients.withLock { $0[value]! }.get() }
        return ids.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Looks up the clients not yet known, a few dozen a request, remembering each one's id or what is wrong.
    private func resolveClients(_ values: [String]) async throws {
        let missing = values.filter { value in clients.withLock { $0[value] == nil } }
        guard !missing.isEmpty else { return }
        let (table, primary) = try await clientsTable()
        for batch in missing.chunked(into: Self.chunk) {
            let terms = batch.flatMap { Formula.idOrName($0, nameField: primary) }
            let found = try await client.linkedRecords(
                in: table, primaryField: primary,
                matching: Formula.any(terms), limit: 1000
            ).get()
            for value in batch {
                let result = await pickClient(value, from: found, table: table, primary: primary)
                clients.withLock { $0[value] = result }
            }
        }
    }

    private func pickClient(_ value: String, from found: [LinkedRecord], table: String, primary: String) async
        -> Result<String, AppError>
    {
        let matches = ProjectNaming.matches(of: value, in: found, id: \.id, name: \.name)
        switch matches.count {
        case 1: return .success(matches[0].id)
        case 0:
            let names = (try? await client.linkedNames(resembling: value, in: table, primaryField: primary).get()) ?? []
            let guess = Suggestion.question(ProjectNaming.closest(to: value, among: names)).map { " " + $0 } ?? ""
            return .failure(
                .usage("unknown client \"\(value)\" (tracker never creates one).\(guess)", command: command))
        default:
            return .failure(
                .usage(
                    "\(matches.count) clients are named \"\(value)\": " + matches.map(\.id).joined(separator: ", ")
                        + "; pass one of the ids", command: command))
        }
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
    /// the leads and teams of the table's projects.
    func collaborators(for people: [String]) async throws -> [JSONValue] {
        try await resolvePeople(people)
        return try people.map { person in try self.people.withLock { $0[person]! }.get() }
    }

    /// Looks up the names not yet known among the projects' leads and teams, a few dozen names a request.
    private func resolvePeople(_ values: [String]) async throws {
        for person in values where person.contains("@") {
            people.withLock { $0[person] = .success(.object([("email", .string(person))])) }
        }
        let missing = values.filter { value in !value.contains("@") && people.withLock { $0[value] == nil } }
        let team = "LOWER(\(Formula.field(fields[.team])))"
        for batch in missing.chunked(into: Self.chunk) {
            let terms = batch.flatMap { name in
                let literal = "LOWER(\(Formula.literal(name)))"
                return [Formula.equalsIgnoringCase(fields[.lead], name), "FIND(\(literal), \(team))"]
            }
            let projects = try await client.projects(
                matching: Formula.any(terms), limit: 100 * batch.count,
                fields: [fields[.lead], fields[.team]]
            ).get()
            let seen = projects.flatMap { ($0.lead.map { [$0] } ?? []) + $0.team }
            for name in batch {
                let result = pickPerson(name, from: seen)
                people.withLock { $0[name] = result }
            }
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
                .usage(
                    "no collaborator named \"\(name)\" leads or works on a project of this table; give their email",
                    command: command))
        default:
            return .failure(
                .usage(
                    "\(matches.count) collaborators are named \"\(name)\": "
                        + matches.map { $0.email ?? $0.id ?? "?" }.joined(separator: ", ") + "; give one email",
                    command: command))
        }
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
