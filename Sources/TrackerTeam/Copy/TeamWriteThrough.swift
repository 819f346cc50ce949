import TrackerAPI
import TrackerModel
import TrackerNetwork

/// Puts the answers to this process's writes into every team's copy of the base kept with the same fields' names (the
/// board's and the assistants' are two), at once and newer wins: a teammate's board shows an `add` from a shell
/// before the next poll. A Redis that fails leaves it to the next poll.
public struct TeamWriter: Sendable {
    let connection: RedisConnection
    let owner: BudgetOwner
    /// The fields' names this process reads records by (known once the layout is confirmed): only copies read by
    /// the same names take its records.
    let names: @Sendable () async -> String?

    public init(connection: RedisConnection, owner: BudgetOwner, names: @escaping @Sendable () async -> String?) {
        (self.connection, self.owner, self.names) = (connection, owner, names)
    }

    /// Registers the copy under `keys` as read by `names` (hashed) for 7 days.
    static func register(_ keys: TeamCopyStore.Keys, names: String, on connection: RedisConnection) {
        _ = try? connection.call([
            ["HSET", keys.registry, keys.prefix, TeamCopyStore.Keys.hash(names)],
            ["PEXPIRE", keys.registry, "604800000"],
        ])
    }

    func put(_ changes: TeamChanges, table: BaseCopy.Table, stamp: Double?) async {
        guard let names = await names().map(TeamCopyStore.Keys.hash) else { return }
        let registry = TeamCopyStore.Keys(owner: owner, table: "", layout: "").registry
        guard !changes.isEmpty, case .array(let items?)? = try? connection.command(["HGETALL", registry]) else {
            return
        }
        var index = 0
        while index + 1 < items.count {
            if let prefix = items[index].text, items[index + 1].text == names {
                let store = TeamCopyStore(
                    keys: TeamCopyStore.Keys(prefix: prefix, registry: registry), connection: connection)
                _ = try? store.heard(stamp: stamp ?? 0, table: table, changes: changes)
            }
            index += 2
        }
    }
}

/// A session's reader whose writes' answers also go to the team's copies; every read is the reader's own.
public struct TeamWriteThrough: RecordReader {
    public let base: any RecordReader
    let writer: TeamWriter
    /// The server's time now (the stamp of a write's answer).
    let serverNow: @Sendable () -> Double?

    public init(base: any RecordReader, writer: TeamWriter, serverNow: @escaping @Sendable () -> Double?) {
        (self.base, self.writer, self.serverNow) = (base, writer, serverNow)
    }

    public func listProjects(_ query: ListQuery, onPage: ([Project]) async throws -> Void) async throws {
        try await base.listProjects(query, onPage: onPage)
    }
    public func projects(ids: [String], fields: [String]?) async -> Result<[Project], AppError> {
        await base.projects(ids: ids, fields: fields)
    }
    public func listTasks(in table: TaskTable, _ query: ListQuery, onPage: ([ProjectTask]) async throws -> Void)
        async throws
    { try await base.listTasks(in: table, query, onPage: onPage) }
    public func tasks(in table: TaskTable, ids: [String], also: Selection<ProjectTask>?) async -> Result<
        [ProjectTask], AppError
    > { await base.tasks(in: table, ids: ids, also: also) }
    public func rawRecords(in table: String, query: ListQuery) async -> Result<[RawRecord], AppError> {
        await base.rawRecords(in: table, query: query)
    }
    public func completedLately(since: String, formula: String?) async throws -> Set<String>? {
        try await base.completedLately(since: since, formula: formula)
    }
    public func deletionWatch() async -> BaseCopy.DeletionWatch? { await base.deletionWatch() }
    public func sharedState() async -> String? { await base.sharedState() }
    public func beginTurn() { base.beginTurn() }

    public func heard(written projects: [Project]) async {
        await base.heard(written: projects)
        var changes = TeamChanges()
        changes.add(projects, to: .projects)
        await writer.put(changes, table: .projects, stamp: serverNow())
    }

    public func heard(written tasks: [ProjectTask]) async {
        await base.heard(written: tasks)
        var changes = TeamChanges()
        changes.add(tasks, to: .tasks)
        await writer.put(changes, table: .tasks, stamp: serverNow())
    }

    public func heard(deleted ids: [String]) async {
        await base.heard(deleted: ids)
        // Which table a deleted id was of is not known here: each table is told; an id it lacks is only stamped gone.
        for table in [BaseCopy.Table.projects, .tasks] {
            var changes = TeamChanges()
            changes.deleted[table] = ids
            await writer.put(changes, table: table, stamp: serverNow())
        }
    }

    public func naming(_ map: FieldMap) -> any RecordReader {
        TeamWriteThrough(base: base.naming(map), writer: writer, serverNow: serverNow)
    }
}
