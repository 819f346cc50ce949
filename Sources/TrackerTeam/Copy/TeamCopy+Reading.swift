import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// A reader's side: the copy loaded from Redis when its header vouches for it, then each applied refresh followed.
extension TeamCopy {
    /// Loads the copy from Redis into the face's copy, or says why it cannot be served. A copy still being built by a
    /// poller is waited for (nothing is said). A poller taking over (`judgingAge` false) goes on from a copy however
    /// old: its own refresh brings it up to date before anything is served.
    func load(judgingAge: Bool = true) async throws {
        guard let copy else { return }
        let (fields, poller, now) = try store.head()
        guard let generation = fields["generation"], !generation.isEmpty else {
            // Nothing in Redis (never built, flushed, evicted): the poller builds it, or this process takes the lease
            // at its next round and builds it. A copy this process had is no longer there to vouch for.
            if let failed = fields["failed"], poller != nil { return setTrouble(failed) }
            showFirstPage()
            if loaded != nil {
                setTrouble("the copy is missing from Redis (flushed, evicted, or not built yet)")
            }
            return
        }
        if let why = Self.untrusted(
            fields, layout: settings.layout, poller: poller, now: judgingAge ? now : 0, every: settings.every)
        {
            return setTrouble(why)
        }
        var tables = TeamTables()
        do {
            try await read(into: &tables, copy: copy, fields: fields)
        } catch let why as Distrust {
            return distrust(why)
        } catch is CountMoved {
            // A write landed while the tables were read (the scan spans many commands): not a short copy; read again.
            loadsMoved += 1
            if loadsMoved <= 3 { return try await load(judgingAge: judgingAge) }
            return setTrouble("it kept changing while it was read (\(loadsMoved) tries)")
        }
        loadsMoved = 0
        if tables.projects == nil { return }
        await copy.adopt(tables)
        await copy.adoptState(fields)
        loaded = Loaded(
            generation: generation, version: Int(fields["version"] ?? "") ?? 0, newsID: fields["news"] ?? "0")
        lastNewsAt = MonotonicClock.now()
        paid(.load)
        setTrouble(nil)
        // What was applied while the tables were read.
        if let news = try? store.news(after: loaded!.newsID, blocking: nil), !news.isEmpty { await apply(news) }
        onChange.withLock { $0 }?()
    }

    /// Gives a face waiting for the copy the first page of the poller's read, once, when the poller has kept it.
    func showFirstPage() {
        guard !firstPageShown, !polling, loaded == nil else { return }
        let show = pages.withLock { $0 }
        guard show != nil || !firstPageKept, let page = store.firstPage(as: Project.self), !page.isEmpty else {
            return
        }
        firstPageKept = true
        guard let show else { return }
        firstPageShown = true
        show(page)
    }

    /// Every table the face keeps, read from Redis and checked against the header's counts; a table short of its count
    /// leaves `tables` without projects and says why.
    private func read(into tables: inout TeamTables, copy: BaseCopy, fields: [String: String]) async throws {
        for table in await copy.teamTables {
            let expected = Int(fields["count:" + table.word] ?? "") ?? -1
            let highest = Int(fields["seq:" + table.word] ?? "")
            let count: Int
            switch table {
            case .projects: (tables.projects, count) = try read(table, as: Project.self, expected, highest)
            case .tasks: (tables.tasks, count) = try read(table, as: ProjectTask.self, expected, highest)
            case .clients: (tables.clients, count) = try read(table, as: RawRecord.self, expected, highest)
            }
            guard count == expected else {
                tables.projects = nil
                // Counted before the scan: a version moved since means writes landed while it ran, not a key lost.
                if let now = try? store.head().fields["version"], now != fields["version"] { throw CountMoved() }
                return setTrouble(
                    "it is short of records (\(table.word): \(count) of \(expected); a key was evicted or deleted)")
            }
        }
    }

    /// Why a header does not vouch for its copy; nil when it does.
    static func untrusted(_ fields: [String: String], layout: String, poller: String?, now: Double, every: Double)
        -> String?
    {
        guard fields["layout"] == TeamCopyStore.Keys.hash(layout) else {
            return "its header names another layout of the tables"
        }
        guard let applied = fields["applied"].flatMap(Double.init) else { return "its header is incomplete" }
        return TeamCopy.tooOld(
            applied: applied, now: now, pace: fields["pace"].flatMap(Double.init), every: every, poller: poller,
            failed: fields["failed"])
    }

    /// Every record of `table` in Redis, decoded, in the table's order (`expected` records, orders up to `highest`, as
    /// the header counts them); a value that is not such a record is a fault.
    private func read<Record: StoredRecord>(
        _ table: BaseCopy.Table, as: Record.Type, _ expected: Int, _ highest: Int?
    ) throws -> (TableCopy<Record>, Int) {
        // Each page is decoded and put in its place as it arrives: two copies of 150,000 records at once would double
        // the memory.
        var load = TableLoad<Record>(expected: expected, highest: highest)
        try store.scan(table) { page in load.add(page) }
        if let junk = load.junk { throw Distrust.junk(table: table, id: junk) }
        let copy = load.table()
        return (copy, copy.count)
    }

    /// A table's count moved while it was read: writes landed, so the copy is read again rather than called short.
    struct CountMoved: Error {}

    /// A copy that holds junk: said, and marked in its header so the poller reads it whole again.
    enum Distrust: Error {
        case junk(table: BaseCopy.Table, id: String)

        var reason: String {
            switch self {
            case .junk(let table, let id):
                "it holds a value that is not a record (\(table.word), \(id.prefix(24)))"
            }
        }
    }

    func distrust(_ why: Distrust) {
        setTrouble(why.reason)
        if let generation = loaded?.generation ?? (try? store.head().fields["generation"]) {
            store.markDistrusted(generation)
        }
    }

    /// Before a turn: every refresh applied so far, and the copy's sizes checked against its header.
    func catchUp() async {
        guard let loaded else { return }
        do {
            // The poller vouches for its own copy (its reads of Airtable); it takes in only the writes of others.
            if polling {
                let news = try store.news(after: loaded.newsID, blocking: nil)
                return news.isEmpty ? () : await apply(news)
            }
            let sizes = try store.sizes(every: settings.every)
            guard let generation = sizes.generation else {
                return setTrouble("the copy is missing from Redis (flushed, or its header evicted)")
            }
            if let short = sizes.short { return setTrouble(short) }
            // Readers judge the copy's age whoever holds the lease: a poller that cannot reach Airtable keeps it no
            // fresher than one gone.
            judgedAge(sizes.old)
            pollerFailing = sizes.failed
            if sizes.old != nil { return }
            // A copy at a version below the one applied here went back in time (a restart from an older dump): it is
            // loaded again once its poller has put the whole copy in again.
            guard generation == loaded.generation, (sizes.version ?? 0) >= loaded.version else {
                owe(.load)
                return try await load()
            }
            let news = try store.news(after: loaded.newsID, blocking: nil)
            if !news.isEmpty { await apply(news) }
        } catch let why as Distrust {
            distrust(why)
        } catch let failure as RedisFailure {
            refused(failure)
        } catch {
            reached(failing: error)
        }
    }

    /// Redis answered a read of the copy with an error (a key of another type, a command refused, an answer over the
    /// bound): the copy is not served and is marked for the poller to make again; only a Redis out of reach is
    /// "unreachable".
    func refused(_ failure: RedisFailure) {
        guard case .replied(let why) = failure else {
            if failure.isMisconfiguration { return setTrouble("Redis refused to read it: " + failure.reason) }
            return reached(failing: failure)
        }
        setTrouble("Redis refused to read it: " + why)
        if let generation = loaded?.generation { store.markDistrusted(generation) }
    }

    /// Applies refreshes other processes applied, in order; a gap (news Redis no longer holds), another generation or
    /// a whole read loads the copy again from Redis.
    func apply(_ news: [TeamNews]) async {
        guard let copy else { return }
        if !news.isEmpty { lastNewsAt = MonotonicClock.now() }
        var changed = false
        for entry in news {
            guard let current = loaded else { return }
            if let version = entry.version, ownVersions.remove(version) != nil {
                loaded?.version = version
                loaded?.newsID = entry.id
                continue
            }
            guard entry.generation == current.generation, !entry.isWhole, entry.version == current.version + 1 else {
                if polling { continue }
                owe(.load)
                try? await load()
                return
            }
            do {
                let projects = try fetch(entry.changed(.projects), .projects, as: Project.self)
                let tasks = try fetch(entry.changed(.tasks), .tasks, as: ProjectTask.self)
                let clients = try fetch(entry.changed(.clients), .clients, as: RawRecord.self)
                var deleted: [BaseCopy.Table: [String]] = [:]
                for table in [BaseCopy.Table.projects, .tasks, .clients] { deleted[table] = entry.deleted(table) }
                await copy.apply(projects: projects, tasks: tasks, clients: clients, deleted: deleted, header: [:])
                loaded?.version = current.version + 1
                loaded?.newsID = entry.id
                changed = true
            } catch let why as Distrust {
                return distrust(why)
            } catch let failure as RedisFailure {
                return refused(failure)
            } catch {
                return reached(failing: error)
            }
        }
        if let header = try? store.head().fields { await copy.adoptState(header) }
        if changed { onChange.withLock { $0 }?() }
    }

    /// The records with these ids as Redis holds them now (one gone since is left out).
    private func fetch<Record: StoredRecord>(_ ids: [String], _ table: BaseCopy.Table, as: Record.Type) throws
        -> [Record]
    {
        guard !ids.isEmpty else { return [] }
        var records: [Record] = []
        for (id, value) in zip(ids, try store.values(table, ids: ids)) {
            guard let value else { continue }
            guard let (_, record) = TeamCopyStore.record(value, as: Record.self), record.id == id else {
                throw Distrust.junk(table: table, id: id)
            }
            records.append(record)
        }
        return records
    }
}
