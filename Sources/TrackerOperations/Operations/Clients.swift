import TrackerAPI
import TrackerModel

/// `tracker clients`: the Clients table, each client with its open and total projects.
package struct Clients: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "clients", facts: [.readsTeamCopy], summary: "List the clients, with their open and total projects.",
        usage: ["tracker clients [--json | --format table|tsv|json|ndjson]"],
        flags: [
            FlagSpec(
                name: "--format", value: "FORMAT", choices: Format.allCases.map(\.rawValue),
                help: "table (on a terminal), tsv (piped), json or ndjson"),
            FlagSpec(name: "--json", help: "the same as --format json"),
        ],
        examples: [
            "tracker clients", "tracker clients --format tsv | sort -t$'\\t' -k3 -nr", "tracker list --client Acme",
        ],
        notes: [
            "The table the projects' Client field links to, sorted by name. TSV: id, name, open, total. JSON:",
            "{\"id\",\"name\",\"about\",\"projects\",\"open\",\"total\",\"fields\"}. Open projects are those not complete.",
        ])

    package enum Format: String, CaseIterable, Sendable {
        case table, tsv, json, ndjson
    }

    package var format: Format? = nil

    package var opening: SessionOpening { .schemaFirst }

    /// The clients with their projects (open and all), read beside the projects' links to them: one round trip for
    /// a base of a page or two; sorted by name as people sort it.
    package func run(in session: Session) async throws -> [ClientSummary] {
        let layout = session.layout
        let fields = layout.fields
        guard let clientField = fields[.client] else {
            throw AppError.usage(
                "this base's projects have no Client field, so tracker cannot tell their clients", command: "clients")
        }
        let table = layout.clientTableID ?? "Clients"
        let primary = layout.schema?.table(table)?.primaryField?.name ?? "Name"
        let wanted = [fields.name, clientField, fields.completion?.field].compactMap { $0 }
        // Projects with a client: a link that is not empty, on Airtable or in a face's copy.
        let linked = ListQuery.picking(
            Selection(formula: Formula.field(clientField)) { !$0.clients.isEmpty },
            fields: layout.table == nil ? nil : wanted)
        let reader = session.reader
        async let projectsRead = reader.collect { onPage in try await reader.listProjects(linked, onPage: onPage) }
        let records = try await reader.rawRecords(in: table).get()
        let projects = try await projectsRead.get()
        var byClient: [String: [Project]] = [:]
        for project in projects { for id in project.clients { byClient[id, default: []].append(project) } }
        let summaries = records.map { record in
            ClientSummary(
                id: record.id, name: record.fields[primary]?.stringValue ?? "",
                about: record.fields["About"]?.stringValue,
                projects: byClient[record.id] ?? [], fields: record.fields)
        }.sorted { (Self.sortKey($0.name), $0.id) < (Self.sortKey($1.name), $1.id) }
        session.knowledge.remember(records: summaries.map { LinkedRecord(id: $0.id, name: $0.name) }, in: table)
        session.rememberClientNames(summaries.map(\.name))
        return summaries
    }
}

extension Clients {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(format: try scanned.formatName().flatMap(Format.init(rawValue:)))
    }
}

/// One client as `clients` shows it.
package struct ClientSummary: Sendable {
    package var id: String
    package var name: String
    package var about: String?
    package var projects: [Project]
    package var fields: JSONValue

    package var open: [Project] { projects.filter { !$0.isComplete } }

    package var object: JSONValue {
        .object([
            ("id", .string(id)), ("name", .string(name)), ("about", .string(or: about)),
            ("projects", .array(projects.map { .string($0.id) })), ("open", .number(Double(open.count))),
            ("total", .number(Double(projects.count))), ("fields", fields),
        ])
    }
    /// Each stored value given.
    package init(id: String, name: String, about: String?, projects: [Project], fields: JSONValue) {
        self.id = id
        self.name = name
        self.about = about
        self.projects = projects
        self.fields = fields
    }
}

extension Clients {
    /// A name as people sort it: any case, numbers by value ("Client 2" before "Client 10").
    package static func sortKey(_ name: String) -> String {
        var key = ""
        var digits = ""
        for character in name.lowercased() + " " {
            if character.isASCII && character.isNumber {
                digits.append(character)
                continue
            }
            if !digits.isEmpty { key += String(repeating: "0", count: max(0, 12 - digits.count)) + digits }
            digits = ""
            key.append(character)
        }
        return key
    }
}
