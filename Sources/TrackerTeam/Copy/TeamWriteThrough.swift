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

/// Tells the team's copies what this process wrote, after the observer it wraps (the face's own copy, or nothing).
public struct TeamWriteThrough: WriteObserver {
    public let base: any WriteObserver
    let writer: TeamWriter
    /// The server's time now (the stamp of a write's answer).
    let serverNow: @Sendable () -> Double?

    public init(base: any WriteObserver, writer: TeamWriter, serverNow: @escaping @Sendable () -> Double?) {
        (self.base, self.writer, self.serverNow) = (base, writer, serverNow)
    }

    public func heard(_ written: WrittenRecords) async {
        await base.heard(written)
        var changes = TeamChanges()
        let table: BaseCopy.Table
        switch written {
        case .projects(let projects):
            table = .projects
            changes.add(projects, to: table)
        case .tasks(let tasks):
            table = .tasks
            changes.add(tasks, to: table)
        case .deleted(let ids, let from):
            table = from
            changes.deleted[table] = ids
        }
        await writer.put(changes, table: table, stamp: serverNow())
    }
}
