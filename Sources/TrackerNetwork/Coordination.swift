#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerSystem
import TrackerModel

/// A lock this process holds against other tracker processes until it is dropped.
public protocol HeldLock: AnyObject, Sendable {
    /// Throws when the lock is no longer this process's (a team lock whose lease ran out): the write must not go.
    func confirmHeld() throws(AppError)
}

extension FileLock: HeldLock {
    /// A file lock lives on its descriptor: held until dropped.
    public func confirmHeld() throws(AppError) {}
}

/// What a pacer and a lock are for: one base of one endpoint, reached with one token.
public struct BudgetOwner: Sendable {
    public var endpoint: URL
    public var baseID: String
    public var token: String
    public var requestsPerSecond: Double

    public init(endpoint: URL, baseID: String, token: String, requestsPerSecond: Double) {
        self.endpoint = endpoint
        self.baseID = baseID
        self.token = token
        self.requestsPerSecond = requestsPerSecond
    }

    /// Airtable's limit for one token across every base it reaches; a pace set above it is for a server that is not
    /// Airtable, and the token's budget follows it.
    package var tokenRequestsPerSecond: Double { max(FileRequestPacer.tokenRequestsPerSecond, requestsPerSecond) }
}

/// How tracker processes share a base's request budget and the locks that keep a write exactly once: one protocol,
/// two engines (this machine's files, a team's Redis), chosen in one place from the configuration. Commands never
/// know which they have.
public protocol Coordination: Sendable {
    /// The pacer for every request to `owner`'s base.
    func pacer(for owner: BudgetOwner) -> any RequestPacer
    /// Where every request to `owner`'s base is counted for the month, beside its per-second budget.
    func usage(for owner: BudgetOwner, wallClock: @escaping @Sendable () -> Double) -> any UsageLedger
    /// Holds what `parts` name (a command, a table, a name) against every other tracker process sharing this engine,
    /// waiting at most `seconds`; nil when there is nowhere to hold it (tracker runs unlocked).
    func lock(
        _ parts: [String], for owner: BudgetOwner, waitingAtMost seconds: Double, doing what: String,
        now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async -> Void
    ) async -> Result<(any HeldLock)?, AppError>
    /// Why the engine cannot share the budget with the others at this moment, in words; nil when it can.
    var unavailable: String? { get }
    /// A small value every process sharing this engine finds under `name` for `owner`'s base (the base's webhook
    /// id); nil when there is none or the engine keeps no such values (this machine's files: the cache keeps them).
    func sharedValue(_ name: String, for owner: BudgetOwner) -> String?
    /// Shares `value` under `name` for `seconds` (nil forgets it); nothing where the engine keeps no such values.
    func share(_ value: String?, as name: String, for owner: BudgetOwner, forSeconds seconds: Int)
    /// The engine of this machine alone, for what guards this machine's own files (`changes`' snapshot): the same
    /// runtime directory whatever engine shares the budget.
    var thisMachine: MachineCoordination { get }
    /// What `doctor` finds when it checks the engine as the commands use it.
    func checkSharing(for owner: BudgetOwner, wallClock: () -> Double) -> SharingFinding
    /// Whether the engine refuses this configuration (a Redis that rejects the password): what to fix, else nil.
    func refusal() -> AppError?
}

/// What `doctor` finds of an engine: this machine's files need no check; a team's Redis is checked whole.
public enum SharingFinding: Sendable {
    case thisMachine
    case team(TeamHealth)
    case teamFailed(AppError)
}

extension Coordination {
    public var unavailable: String? { nil }

    public func sharedValue(_ name: String, for owner: BudgetOwner) -> String? { nil }

    public func share(_ value: String?, as name: String, for owner: BudgetOwner, forSeconds seconds: Int) {}

    public func checkSharing(for owner: BudgetOwner, wallClock: () -> Double) -> SharingFinding { .thisMachine }

    public func refusal() -> AppError? { nil }
}

/// The embedded default: the slot files and file locks of the runtime directory, shared by the user's processes on
/// this machine, with nothing to set up.
public struct MachineCoordination: Coordination {
    public let directory: RuntimeDirectory

    public init(directory: RuntimeDirectory) { self.directory = directory }

    public var thisMachine: MachineCoordination { self }

    public func pacer(for owner: BudgetOwner) -> any RequestPacer {
        TwoBudgetPacer(
            base: FileRequestPacer(
                directory: directory, name: FileRequestPacer.slotName(endpoint: owner.endpoint, baseID: owner.baseID),
                requestsPerSecond: owner.requestsPerSecond),
            token: FileRequestPacer(
                directory: directory, name: FileRequestPacer.slotName(endpoint: owner.endpoint, token: owner.token),
                requestsPerSecond: owner.tokenRequestsPerSecond))
    }

    public func usage(for owner: BudgetOwner, wallClock: @escaping @Sendable () -> Double) -> any UsageLedger {
        FileUsageLedger(directory: directory, owner: owner, wallClock: wallClock)
    }

    public func lock(
        _ parts: [String], for owner: BudgetOwner, waitingAtMost seconds: Double, doing what: String,
        now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async -> Void
    ) async -> Result<(any HeldLock)?, AppError> {
        let name = FileLock.name(prefix: parts.first ?? "lock", [owner.baseID] + parts.dropFirst())
        return await FileLock.acquire(name, in: directory, waitingAtMost: seconds, doing: what, now: now, sleep: sleep)
            .map { $0 }
    }
}

/// What `doctor` finds of a team's Redis (the engine of the team's layer checks it).
public struct TeamHealth: Sendable {
    /// One PING's round trip, in seconds.
    public var roundTrip: Double
    /// Redis's clock less this machine's, in seconds.
    public var clockSkew: Double
    /// Tracker processes that drew on the base's budget in the last minute.
    public var processes: Int
    /// The policy by which Redis evicts keys once it reaches its memory limit, when it has one and says it (`INFO
    /// memory`; a managed Redis may not): nil when nothing is evicted, or when it cannot be told.
    public var evicting: String? = nil

    /// Why it refused a write while answering reads (full under `noeviction`, a read-only replica), when it did.
    public var refusedWrite: String? = nil

    public init(roundTrip: Double, clockSkew: Double, processes: Int, evicting: String? = nil) {
        (self.roundTrip, self.clockSkew, self.processes, self.evicting) = (roundTrip, clockSkew, processes, evicting)
    }

    /// Whether a key of tracker's (a lock, the budget's schedule) may be evicted: any policy but `noeviction` under
    /// a memory limit (tracker's keys all expire, so the `volatile-*` policies may pick them too).
    public static func evictionPolicy(fromInfo text: String) -> String? {
        var policy: String?
        var limit = 0
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("maxmemory_policy:") { policy = String(line.dropFirst("maxmemory_policy:".count)) }
            if line.hasPrefix("maxmemory:") { limit = Int(line.dropFirst("maxmemory:".count)) ?? 0 }
        }
        guard let policy, policy != "noeviction", limit > 0 else { return nil }
        return policy
    }
}
