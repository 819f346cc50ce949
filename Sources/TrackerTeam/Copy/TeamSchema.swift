import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// The base's schema as the team's copy shares it through Redis: a machine that takes part reads it from there when
/// it remembers none, so ten machines opening at once cost the base one schema read, not ten. One of them reads it
/// from Airtable (holding a short claim) while the others wait a moment for it.
///
/// Only the schema API's answer and when it was read are shared (never a token, user or names found); it is kept as
/// long as a remembered schema is (an hour) and checked as strictly: one that does not parse is not used.
public struct TeamSchema: Sendable {
    let key: String
    let claimKey: String
    let connection: RedisConnection
    /// The short claim on reading the schema: a lease never renewed, so a machine that dies reading frees it soon.
    let claimed: Lease

    /// The shared schema of the base `owner` names, at its endpoint.
    public init(owner: BudgetOwner, connection: RedisConnection) {
        let base = TeamCoordination.Keys.base(owner.baseID)
        key = "tracker:{\(base)}:schema:" + TeamCoordination.Keys.endpoint(owner)
        claimKey = key + ":reading"
        self.connection = connection
        claimed = Lease(
            claimKey, on: connection, timing: Lease.Timing(leaseMilliseconds: Self.claimMilliseconds, renewEvery: 0))
    }

    /// How long one machine may take to read the schema before the others read it themselves.
    static let claimMilliseconds = 5_000

    /// The schema shared, and when it was read (seconds since 1970); nil when none is, Redis fails or it is junk.
    public func shared() -> (readAt: Double, schema: JSONValue)? {
        Self.parse((try? connection.command(["GET", key]))?.text)
    }

    /// A shared schema's value read back; nil when it is not one.
    private static func parse(_ text: String?) -> (readAt: Double, schema: JSONValue)? {
        guard let parts = text?.split(separator: " ", maxSplits: 1), parts.count == 2, let readAt = Double(parts[0]),
            let schema = try? JSONParser.parse(String(parts[1])), case .object = schema
        else { return nil }
        return (readAt, schema)
    }

    /// Shares `schema`, read at `readAt`, for `lifetime` seconds from then; a failing Redis is left alone.
    public func share(_ schema: JSONValue, readAt: Double, lifetime: Double) {
        let milliseconds = Int(max(1, lifetime) * 1000)
        _ = try? connection.command(["SET", key, "\(readAt) " + schema.serialized(), "PX", "\(milliseconds)"])
        release()
    }

    /// The schema shared and `isFresh`, found now or once the machine reading it has shared it; nil when this process
    /// is to read it (it then holds the claim, or Redis fails).
    public func find(isFresh: (Double) -> Bool) async -> (readAt: Double, schema: JSONValue)? {
        if let found = shared(), isFresh(found.readAt) { return found }
        return await claimOrAwait(isFresh: isFresh)
    }

    /// After finding no schema shared: claims the read for this process, or waits for the machine that holds the claim.
    /// A machine shares the schema before it lets its claim go, so a claim taken after it is let go finds the schema:
    /// it is looked for again then (else a machine that looked just before it was shared reads it a second time).
    func claimOrAwait(isFresh: (Double) -> Bool) async -> (readAt: Double, schema: JSONValue)? {
        guard claim() else { return await awaitShared(isFresh: isFresh) }
        guard let found = shared(), isFresh(found.readAt) else { return nil }
        release()
        return found
    }

    /// Claims the schema's read for this process: true when it should read it (nobody else is, or Redis fails).
    func claim() -> Bool {
        (try? claimed.take()) ?? true
    }

    /// Lets the claim go (the read failed), so another machine reads the schema at once.
    public func release() {
        claimed.release()
    }

    /// Waits for the machine that claimed the read to share it: the schema once it is shared and `isFresh`, nil when
    /// the claim ends without one (that read failed) or after the claim's time.
    func awaitShared(isFresh: (Double) -> Bool) async -> (readAt: Double, schema: JSONValue)? {
        let deadline = MonotonicClock.now() + Double(Self.claimMilliseconds) / 1000
        while MonotonicClock.now() < deadline {
            // Whether the claim still stands, then the value, in one round trip: in that order, a claim found gone
            // was let go after its schema was shared, which the value read after it then holds.
            guard let answers = try? connection.call([["EXISTS", claimKey], ["GET", key]]) else { return nil }
            let found = Self.parse(answers[1].text).flatMap { isFresh($0.readAt) ? $0 : nil }
            if found != nil || answers[0] != .integer(1) { return found }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return nil
    }
}
