import TrackerAPI
import TrackerOperations
import TrackerNetwork

/// What `--if-absent` found: the record already there, or the client to create with, holding the create's lock.
enum IfAbsentOutcome<Record> {
    case found(Record)
    /// Create with this client: its lease is the lock, which it confirms right before each attempt goes out.
    case create(ProjectAPIClient)
}

extension Runner {
    /// `--if-absent`'s rule, one for every create that takes it. A record already there needs no write, so no lock:
    /// it is looked for first. Only a create takes the lock, and looks again under it: two runs of the same cron line
    /// must not both find the name absent and both create it. Without `--if-absent`, nothing is looked for or locked.
    func creatingIfAbsent<Record>(
        _ ifAbsent: Bool, with client: ProjectAPIClient, find: () async throws -> Record?,
        lock: () async throws -> (any HeldLock)?
    ) async throws -> IfAbsentOutcome<Record> {
        guard ifAbsent else { return .create(client) }
        if let record = try await find() { return .found(record) }
        var leased = client
        leased.lease = try await lock()
        if let record = try await find() { return .found(record) }
        return .create(leased)
    }
}
