#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Values that name records of other tables (clients) and people (collaborators).
extension ValueChecker {
    // MARK: - Links

    /// Another table: its id (or name, without the schema) and its primary field.
    package struct LinkTarget: Sendable {
        package var table: String
        package var primaryField: String
    }

    /// The table the client field links to and its primary field: from the schema, else the template's.
    package func linkTarget(for word: FieldMap.Word) throws -> LinkTarget {
        let name = try requireField(word, for: word.flag)
        if let linked = layout.table?.field(named: name)?.linkedTableID {
            return try linkTarget(table: linked, field: name)
        }
        return LinkTarget(table: "Clients", primaryField: "Name")
    }

    package func linkTarget(table: String, field: String) throws -> LinkTarget {
        guard let linked = layout.schema?.table(table), let primary = linked.primaryField else {
            throw usage("\(field) links to a table tracker cannot read")
        }
        return LinkTarget(table: linked.id, primaryField: primary.name)
    }

    /// The record ids of the clients `values` name (names, any case, or ids), in order, each once.
    package func clientIDs(_ values: [String]) async throws -> [String] {
        try await linkedIDs(values, in: try linkTarget(for: .client), what: "client")
    }

    /// The record ids `values` name (names, any case, or ids) in `target`'s table, in order, each once.
    package func linkedIDs(_ values: [String], in target: LinkTarget, what: String) async throws -> [String] {
        try await resolveLinks(values, in: target)
        let ids = try values.map { value in try links.withLock { $0[target.table + "\u{0}" + value]! }.get() }
        return ids.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Resolves the values not yet known, from remembered names first, then a few dozen a request.
    package func resolveLinks(_ values: [String], in target: LinkTarget) async throws {
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
            var names =
                (try? await client.linkedNames(
                    resembling: value, in: target.table, primaryField: target.primaryField
                ).get()) ?? []
            // A typo inside every fragment ("Acne" for "Acme") shares none: a small table's first names are asked for.
            if names.isEmpty {
                names =
                    (try? await client.linkedRecords(
                        in: target.table, primaryField: target.primaryField, matching: "TRUE()", limit: 200
                    ).get())?.compactMap(\.name) ?? []
            }
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
    package func collaborators(for people: [String]) async throws -> [JSONValue] {
        try await resolvePeople(people)
        return try people.map { person in try self.people.withLock { $0[person]! }.get() }
    }

    /// Looks up the names not yet known among the projects' leads and teams (and `alsoIn`), a few dozen names a
    /// request; names found before are remembered.
    package func resolvePeople(_ values: [String], alsoIn extra: String? = nil) async throws {
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
