import TrackerAPI
import TrackerModel

/// `tracker show`: one project, by id or name, as a human view or as JSON.
package struct Show: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "show", facts: [.readsTeamCopy], summary: "Show every field of one project, by id or name.",
        usage: ["tracker show ID|NAME [--json]"], positional: "ID|NAME", arguments: .projects,
        flags: [
            FlagSpec(name: "--json", help: "print the project object as JSON"),
            FlagSpec(
                name: "--comments",
                help: "also the newest comments, read beside the record (with --json, up to 10 under \"comments\")"),
        ],
        examples: [
            "tracker show rec3g0Xxmw2rw3scs", "tracker show \"CMCA brand identity\"", "tracker show \"$id\" --json",
        ],
        notes: [CommandSpec.namingNote])

    package var target: String
    package var json = false
    /// Whether the newest comments are read even where the view would not end with them (JSON, a pipe).
    package var comments = false
    /// Whether the view is for a terminal, where it ends with the newest comments (read beside the record).
    package var forTerminal = false

    /// Each value given.
    package init(target: String, json: Bool = false, comments: Bool = false, forTerminal: Bool = false) {
        self.target = target
        self.json = json
        self.comments = comments
        self.forTerminal = forTerminal
    }

    // Cold, the schema read goes out beside the record's (and the template's linked names): one round trip.
    package var opening: SessionOpening { .besideSchema }

    package static let commentsShown = 3
    package static let commentsInJSON = 10

    /// One project, by id or name, with what it links to named. The names of the linked records come from memory; a
    /// linked table not yet remembered is read in the same round trip as the project.
    package func run(in prepared: Session) async throws -> ProjectDetail {
        // The Tasks table's records are read whole below, so not their names alone.
        let tasksTable = prepared.layout.tasks.map { [$0.route] } ?? []
        // JSON gives the clients' names beside their ids too, read the same way.
        async let read = Self.namesReadBeside(prepared, skipping: Set(tasksTable))
        // On a terminal the newest comments end the view: by id, read beside the record.
        let wantsComments = comments || (!json && forTerminal)
        let commentLimit = json ? Self.commentsInJSON : Self.commentsShown + 1
        let byID = ProjectAPIClient.looksLikeRecordID(target)
        async let early = wantsComments && byID ? prepared.client.comments(on: target, limit: commentLimit) : nil
        // A typed name lets the project's tasks be read beside its record: narrowed on Airtable by that name (a link
        // is names inside a formula) and kept here only if the record's own Tasks field lists them.
        // By id, the name a listing remembered for it does the same (checked the same way against the record).
        let knownName = byID ? prepared.rememberedName(ofProject: target) : target
        async let tasksBeside: [ProjectTask]? =
            if let knownName { Self.tasksNamed(knownName, layout: prepared.layout.tasks, session: prepared) } else {
                nil
            }
        let found = try await ProjectNaming(client: prepared.client, forgivesWords: true).resolve(target)
        let session = try await prepared.withConfirmedLayout()
        let tasks = try await Self.tasks(of: found, read: await tasksBeside, session: session)
        var project = found
        session.rememberNames([project.name ?? ""], ids: [(project.id, project.name ?? "")], replacing: false)
        let comments: Result<[RecordComment], AppError>? =
            if let early = await early, project.id == target {
                early
            } else if wantsComments {
                await session.client.comments(on: project.id, limit: commentLimit)
            } else {
                nil
            }
        var detail = ProjectDetail(
            project: project, tasks: tasks, comments: comments, recordNames: [:], layout: session.layout,
            baseID: session.configuration.baseID)
        if json {
            // Additive: "clients" stays the ids; "clientNames" gives each one's name (null where it cannot be read).
            if !project.clients.isEmpty {
                // The clients alone: the other links' names are not part of the JSON.
                var clientsOnly = project
                clientsOnly.otherFields = []
                detail.recordNames = await Self.linkedNames(
                    of: clientsOnly, in: Self.linkedTables(session), session: session, known: await read)
            }
            return detail
        }
        // The tasks are listed whole below; their link is not shown again as names.
        if tasks != nil, let link = session.layout.tasks?.projectsLink {
            project.otherFields.removeAll { $0.name == link }
        }
        detail.project = project
        detail.recordNames = await Self.linkedNames(
            of: project, in: Self.linkedTables(session), session: session, known: await read)
        return detail
    }
}

extension Show {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.projectTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(target: target, json: scanned.has("--json"), comments: scanned.has("--comments"))
    }
}

/// One project as `show` read it: the record, its tasks and newest comments when read, the names of what it links to,
/// and the layout it was read with (confirmed).
package struct ProjectDetail: Sendable {
    package var project: Project
    /// Its tasks in the order its Tasks field lists them; nil when the base has no Tasks table or no link to it.
    package var tasks: [ProjectTask]?
    /// The newest comments, newest first, when they were asked for (a failure to read them is not the command's).
    package var comments: Result<[RecordComment], AppError>?
    /// Names of the records it links to, by id (for JSON, the clients' only).
    package var recordNames: [String: String]
    package var layout: TableLayout
    package var baseID: String

    /// The project's page on airtable.com, when the schema gave the table's id.
    package var address: String? {
        layout.table.map { WebAddress.record(baseID: baseID, tableID: $0.id, recordID: project.id) }
    }
}

extension Show {
    /// Tasks that may be `name`'s, read beside the project's own read; nil when there is no Tasks table or the read
    /// fails (the project's tasks are then read by id).
    package static func tasksNamed(_ name: String, layout: TaskLayout?, session: Session) async -> [ProjectTask]? {
        guard let layout, let link = layout.fields[.project] else { return nil }
        let formula = "FIND(LOWER(\(Formula.literal(name))), LOWER(\(Formula.field(link))))"
        return try? await session.client.tasks(in: layout.client, matching: formula).get()
    }

    /// The project's tasks, in the order its Tasks field lists them: those read beside kept when the record lists them,
    /// the rest read by id; nil when the base has no Tasks table or the projects no link to it.
    package static func tasks(of project: Project, read: [ProjectTask]?, session: Session) async throws
        -> [ProjectTask]?
    {
        guard let layout = session.layout.tasks, let ids = session.taskIDs(of: project, in: layout) else { return nil }
        let byID = Dictionary((read ?? []).map { ($0.id, $0) }) { first, _ in first }
        let missing = ids.filter { byID[$0] == nil }
        var found = byID
        if !missing.isEmpty {
            for task in try await session.reader.tasks(in: layout.client, ids: missing).get() { found[task.id] = task }
        }
        return ids.compactMap { found[$0] }
    }

    /// The names of the records of the linked tables not yet remembered, by id: each table read whole, beside the
    /// project's read (cold, the template's Clients and Tasks).
    package static func namesReadBeside(_ session: Session, skipping: Set<String> = []) async -> [String: String] {
        let unread = Self.linkedTables(session).filter {
            !skipping.contains($0.key) && session.knowledge.recordNames(in: $0.key).isEmpty
        }
        let records = await session.knowledge.readNames(
            unread.map {
                .init(table: $0.key, primaryField: $0.value, formula: "TRUE()", limit: BaseKnowledge.linkedNamesRead)
                // One page at most beside the record, never a sequence of pages; the few names it lacks are read by
                // id afterwards (`linkedNames`).
            })
        return Dictionary(records.compactMap { record in record.name.map { (record.id, $0) } }) { first, _ in first }
    }

    /// The tables the projects table links to (by id, or the template's Clients without the schema), each with its
    /// primary field.
    package static func linkedTables(_ session: Session) -> [String: String] {
        guard let table = session.layout.table else {
            var tables = session.layout.fields[.client] == nil ? [:] : ["Clients": "Name"]
            // Cold, the schema is on its way: the template's other linked table is read beside it too, so a project
            // with tasks is shown in one round trip (a base without that table answers 404, which costs nothing).
            if session.inFlight != nil { tables["Tasks"] = "Name" }
            return tables
        }
        var tables: [String: String] = [:]
        for field in table.fields where field.type == "multipleRecordLinks" {
            guard let id = field.linkedTableID, let linked = session.layout.schema?.table(id),
                let primary = linked.primaryField
            else { continue }
            tables[linked.id] = primary.name
        }
        return tables
    }

    /// Names for the records `project` links to: remembered ones, and any other read now by id; ids stay ids where
    /// that fails.
    package static func linkedNames(
        of project: Project, in tables: [String: String], session: Session, known: [String: String] = [:]
    )
        async -> [String: String]
    {
        var wanted: [String: [String]] = [:]
        if let clientTable = session.layout.clientTableID ?? (tables["Clients"] != nil ? "Clients" : nil) {
            wanted[clientTable, default: []] += project.clients
        }
        for field in project.otherFields {
            guard let id = session.layout.table?.field(named: field.name)?.linkedTableID else { continue }
            wanted[id, default: []] += field.value.arrayValue?.compactMap(\.stringValue) ?? []
        }
        var names: [String: String] = [:]
        var missing: [BaseKnowledge.NamesWanted] = []
        for (table, ids) in wanted {
            let remembered = session.knowledge.recordNames(in: table).merging(known) { first, _ in first }
            for id in ids { if let name = remembered[id] { names[id] = name } }
            let unknown = Array(Set(ids.filter { remembered[$0] == nil })).sorted()
            if !unknown.isEmpty, let primary = tables[table] {
                let formula = Formula.any(unknown.map(Formula.recordID(is:)))
                missing.append(.init(table: table, primaryField: primary, formula: formula, limit: 100))
            }
        }
        for record in await session.knowledge.readNames(missing) {
            if let name = record.name { names[record.id] = name }
        }
        return names
    }
}
