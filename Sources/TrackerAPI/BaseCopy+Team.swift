import TrackerModel

/// What one refresh or write changed, table by table, as the scripts take it: records as stored (id, JSON) and ids
/// gone.
package struct TeamChanges: Sendable {
    package var changed: [BaseCopy.Table: [(id: String, json: String)]] = [:]
    package var deleted: [BaseCopy.Table: [String]] = [:]

    package init() {}

    package var isEmpty: Bool { changed.values.allSatisfy(\.isEmpty) && deleted.values.allSatisfy(\.isEmpty) }

    package mutating func add<Record: StoredRecord>(_ records: [Record], to table: BaseCopy.Table) {
        changed[table, default: []] += records.map { ($0.id, $0.stored.serialized()) }
    }

    /// The scripts' arguments for `tables`: for each, m then m (id, json), d then d ids.
    package func arguments(_ tables: [BaseCopy.Table]) -> [String] {
        var words: [String] = []
        for table in tables {
            let changed = changed[table] ?? []
            words.append("\(changed.count)")
            for (id, json) in changed { words += [id, json] }
            let deleted = deleted[table] ?? []
            words.append("\(deleted.count)")
            words += deleted
        }
        return words
    }
}

/// What one refresh of a copy changed, as the team's copy is told it: tables read whole, records changed, ids gone.
package struct RefreshReport: Sendable {
    package var whole: Set<BaseCopy.Table> = []
    package var changes = TeamChanges()

    init(whole: Set<BaseCopy.Table> = []) { self.whole = whole }

    init(_ pending: PendingRefresh, destroyedIn: (BaseCopy.Table) -> Set<String>) {
        if pending.projects.whole != nil { whole.insert(.projects) }
        if pending.tasks.whole != nil { whole.insert(.tasks) }
        if pending.clients.whole != nil { whole.insert(.clients) }
        changes.add(pending.projects.changed ?? [], to: .projects)
        changes.add(pending.tasks.changed ?? [], to: .tasks)
        changes.add(pending.clients.changed ?? [], to: .clients)
        for table in [BaseCopy.Table.projects, .tasks, .clients] {
            var gone = destroyedIn(table)
            switch table {
            case .projects: gone.formUnion(pending.projects.gone ?? [])
            case .tasks: gone.formUnion(pending.tasks.gone ?? [])
            case .clients: gone.formUnion(pending.clients.gone ?? [])
            }
            if !gone.isEmpty { changes.deleted[table] = gone.sorted() }
        }
    }
}

/// The tables of a copy, as read from the team's copy.
package struct TeamTables: Sendable {
    package var projects: TableCopy<Project>?
    package var tasks: TableCopy<ProjectTask>?
    package var clients: TableCopy<RawRecord>?

    package init() {}
}

extension BaseCopy {
    /// The tables this copy keeps (the team's copy keeps the same).
    package var teamTables: [Table] {
        [.projects] + (taskTable == nil ? [] : [.tasks]) + (clientTable == nil ? [] : [.clients])
    }

    /// The poller's turn: reads Airtable as a refresh alone would (whole when `whole`, or when nothing is kept yet),
    /// and says what changed.
    package func pollForTeam(whole: Bool, onPage: (@Sendable ([Project]) -> Void)? = nil) async throws -> RefreshReport
    {
        while let running { _ = try? await running.value }
        let work = Task {
            defer { running = nil }
            lastReport = RefreshReport()
            if whole { (projectCopy, taskCopy, clientCopy, watch) = (nil, nil, nil, nil) }
            let missing = Set(teamTables.filter { !keptTables.contains($0) })
            try await refresh(adding: missing, onPage: onPage)
            return lastReport
        }
        running = Task { _ = try await work.value }
        return try await work.value
    }

    /// The header fields of this copy's state: each table's mark, the watch and the webhook's cursor.
    package func teamHeader() -> [(String, String)] {
        var fields: [(String, String)] = [("cursor", "\(cursor)")]
        for (table, mark) in [
            (Table.projects, projectCopy?.mark), (.tasks, taskCopy?.mark), (.clients, clientCopy?.mark),
        ] {
            fields.append(("mark:" + table.word, mark ?? ""))
        }
        switch watch {
        case .webhook(let id)?: fields.append(("watch", "webhook " + id))
        case .idListing(let reason)?: fields.append(("watch", "ids " + reason))
        case nil: fields.append(("watch", ""))
        }
        fields.append(("hookExpires", hookExpires.map { "\($0)" } ?? ""))
        return fields
    }

    /// The records of every table kept, as the team's copy stores them.
    package func storedTables() -> [(Table, [(id: String, json: String)])] {
        var tables: [(Table, [(id: String, json: String)])] = []
        for table in teamTables {
            var records: [(id: String, json: String)] = []
            switch table {
            case .projects: projectCopy?.forEach { records.append(($0.id, $0.stored.serialized())) }
            case .tasks: taskCopy?.forEach { records.append(($0.id, $0.stored.serialized())) }
            case .clients: clientCopy?.forEach { records.append(($0.id, $0.stored.serialized())) }
            }
            tables.append((table, records))
        }
        return tables
    }

    /// The team's copy, loaded whole, replaces this copy's tables (its state follows, `adoptState`).
    package func adopt(_ tables: TeamTables) {
        if let projects = tables.projects { noteCompletion(projects.records(where: \.isComplete)) }
        (projectCopy, taskCopy, clientCopy) = (tables.projects, tables.tasks, tables.clients)
        projectCopy?.idsListed = localNow()
        taskCopy?.idsListed = localNow()
        clientCopy?.idsListed = localNow()
    }

    /// One refresh another process applied to the team's copy, applied here.
    package func apply(
        projects: [Project], tasks: [ProjectTask], clients: [RawRecord], deleted: [Table: [String]],
        header: [String: String]
    ) {
        noteCompletion(projects)
        projectCopy?.merge(projects)
        taskCopy?.merge(tasks)
        clientCopy?.merge(clients)
        projectCopy?.remove(deleted[.projects] ?? [])
        taskCopy?.remove(deleted[.tasks] ?? [])
        clientCopy?.remove(deleted[.clients] ?? [])
        adoptState(header)
    }

    /// The marks, watch and cursor the team's copy's header holds.
    package func adoptState(_ header: [String: String]) {
        adoptDone(header)
        if let mark = header["mark:projects"] { projectCopy?.mark = mark.isEmpty ? nil : mark }
        if let mark = header["mark:tasks"] { taskCopy?.mark = mark.isEmpty ? nil : mark }
        if let mark = header["mark:clients"] { clientCopy?.mark = mark.isEmpty ? nil : mark }
        if let cursor = header["cursor"].flatMap({ Int($0) }), cursor >= 1 { self.cursor = cursor }
        hookExpires = header["hookExpires"].flatMap { Double($0) }
        let watched = header["watch"] ?? ""
        if watched.hasPrefix("webhook ") {
            watch = .webhook(id: String(watched.dropFirst("webhook ".count)))
        } else if watched.hasPrefix("ids ") {
            watch = .idListing(because: String(watched.dropFirst("ids ".count)))
        }
    }
}

extension BaseCopy.Table {
    /// The table's word in the copy's keys and header.
    public var word: String {
        switch self {
        case .projects: "projects"
        case .tasks: "tasks"
        case .clients: "clients"
        }
    }
}
