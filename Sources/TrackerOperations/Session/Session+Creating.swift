import TrackerAPI
import TrackerModel
import TrackerNetwork

/// What a create came to: the record it made, or (with `--if-absent`) the one already there.
package enum Creation<Record: Sendable>: Sendable {
    case created(Record)
    case found(Record)

    /// The record made or found.
    package var record: Record {
        switch self {
        case .created(let record), .found(let record): record
        }
    }

    /// Whether the record was made now (false: `--if-absent` found it there).
    package var isNew: Bool { if case .created = self { true } else { false } }
}

extension Session {
    /// Creates one record, exactly once. With `ifAbsent`, a record already there needs no write, so no lock: it is
    /// looked for first; only a create takes the lock (`lockName`), and looks again under it, so two runs of the same
    /// cron line cannot both find the name absent and both create it. The lock is the client's lease, confirmed right
    /// before each attempt goes out (a lease run out, a Redis restarted). Once the create may have been sent, the
    /// command is never run again; with `recheck`, a create the schema contradicts is checked again (`writing`).
    package func create<Record>(
        ifAbsent: Bool, lockName: [String], for command: String, doing what: String,
        find: () async throws -> Record?, recheck: ((Session) async throws -> Void)? = nil,
        send: (ProjectAPIClient) async throws -> Record
    ) async throws -> Creation<Record> {
        var leased = client
        if ifAbsent {
            if let record = try await find() { return .found(record) }
            leased.lease = try await lock(lockName, for: command, doing: what)
            if let record = try await find() { return .found(record) }
        }
        defer { withExtendedLifetime(leased) {} }
        // A create whose answer is lost may have happened: no second run may send it again. A field the assumed layout
        // named wrongly is refused by Airtable (nothing created) and then checked against the schema.
        attempt.neverRunAgain()
        let record: Record
        if let recheck {
            record = try await writing(recheck: recheck) { try await send(leased) }
        } else {
            record = try await send(leased)
        }
        await finish()
        return .created(record)
    }

    /// Holds what `parts` name for `command` in this table of this base against every other tracker process (of the
    /// machine, or of the team when `"redis"` is set; `machineOnly` for what guards this machine's own files),
    /// waiting at most the retry budget, until the returned lock is released; other names and tables go on at once.
    /// Nil when there is nowhere to hold it.
    package func lock(
        _ parts: [String], for command: String, doing what: String, machineOnly: Bool = false
    ) async throws -> (any HeldLock)? {
        let shared = surroundings.coordination
        let engine: any Coordination = machineOnly ? shared.thisMachine : shared
        // A lock that guards a write names the table by its id once the schema told it: machines configured with the
        // table's name and with its id (`tbl…`) take the same lock. A machine's own lock (`changes`' snapshot) names
        // what its snapshot does, and waits for no schema.
        let table = machineOnly ? configuration.table : try await confirmedLayout().table?.id ?? configuration.table
        return try await engine.lock(
            [command, table] + parts, for: configuration.budgetOwner,
            waitingAtMost: Double(configuration.retryBudgetSeconds), doing: what,
            now: surroundings.network.now, sleep: surroundings.network.sleep
        ).get()
    }
}
