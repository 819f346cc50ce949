#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerSystem
import TrackerModel
import TrackerNetwork

/// A team's Redis as the engine: every tracker process on every machine that names it takes its request slots, the
/// hold after a 429 and its write locks there. When it cannot be reached, pacing falls back to this machine's
/// engine (one warning line) and a lock is refused, so nothing is written unguarded.
public final class TeamCoordination: Coordination {
    public let connection: RedisConnection
    let machine: MachineCoordination
    let warn: @Sendable (String) -> Void
    /// Whether the last call failed, and when to try the Redis again.
    /// Whether the last try failed, when to try again, and why it failed.
    private let health = Locked((down: false, retryAt: 0.0, why: ""))
    /// This process among those drawing on the budget (`doctor` counts them); random, so it says nothing of the host.
    let processID = Digest.randomHex(bytes: 8)

    /// How long after a failed call pacing stays on this machine before the Redis is tried again: a Redis that
    /// times out would otherwise cost 500 ms on every request.
    static let retryInterval = 2.0

    public init(connection: RedisConnection, machine: MachineCoordination, warn: @escaping @Sendable (String) -> Void) {
        self.connection = connection
        self.machine = machine
        self.warn = warn
    }

    /// The keys for `owner`: every one under `tracker:` with the base as the hash tag (the token's budget under its
    /// keyed hash, as it spans bases), never a token or a name in clear.
    public struct Keys: Equatable, Sendable {
        public var budget: String
        public var seen: String
        public var tokenBudget: String

        public init(_ owner: BudgetOwner) {
            let (base, endpoint) = (Self.base(owner.baseID), Self.endpoint(owner))
            budget = "tracker:{\(base)}:budget:\(endpoint)"
            seen = "tracker:{\(base)}:seen:\(endpoint)"
            let token = String(Digest.hmacSHA256Hex(key: "tracker token budget", owner.token).prefix(32))
            tokenBudget = "tracker:{token-\(token)}:budget:\(endpoint)"
        }

        /// The key of a small value the team shares about a base (its webhook's id).
        public static func shared(_ name: String, owner: BudgetOwner) -> String {
            "tracker:{\(base(owner.baseID))}:\(name):\(endpoint(owner))"
        }

        /// The base as every key's hash tag: its letters and digits (one slot in a cluster).
        public static func base(_ baseID: String) -> String { baseID.filter { $0.isLetter || $0.isNumber } }

        /// The endpoint (host and port), hashed, so keys name no host in clear.
        public static func endpoint(_ owner: BudgetOwner) -> String {
            String(StableHash.of("\(owner.endpoint.host ?? "")-\(owner.endpoint.port ?? 0)"), radix: 16)
        }

        /// A lock's key: a hash of what it holds (a table, a project's name).
        public static func lock(_ parts: [String], baseID: String) -> String {
            let base = base(baseID)
            let hash = Digest.hmacSHA256Hex(key: "tracker lock", parts.joined(separator: "\u{0}")).prefix(32)
            return "tracker:{\(base)}:lock:\(hash)"
        }
    }

    public func pacer(for owner: BudgetOwner) -> any RequestPacer {
        RedisPacer(team: self, owner: owner, keys: Keys(owner), fallback: machine.pacer(for: owner))
    }

    public func usage(for owner: BudgetOwner, wallClock: @escaping @Sendable () -> Double) -> any UsageLedger {
        RedisUsageLedger(
            team: self, owner: owner,
            fallback: FileUsageLedger(directory: machine.directory, owner: owner, wallClock: wallClock),
            wallClock: wallClock)
    }

    public func lock(
        _ parts: [String], for owner: BudgetOwner, waitingAtMost seconds: Double, doing what: String,
        now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async -> Void
    ) async -> Result<(any HeldLock)?, AppError> {
        await RedisLock.acquire(
            key: Keys.lock(parts, baseID: owner.baseID), team: self, waitingAtMost: seconds, doing: what, now: now,
            sleep: sleep
        ).map { $0 }
    }

    public var thisMachine: MachineCoordination { machine }

    public func refusal() -> AppError? {
        do throws(RedisFailure) {
            _ = try connection.command(["PING"])
            return nil
        } catch {
            return error.isMisconfiguration ? problem(error) : nil
        }
    }

    public func checkSharing(for owner: BudgetOwner, wallClock: () -> Double) -> SharingFinding {
        do throws(RedisFailure) {
            let health = try health(for: owner, wallClock: wallClock)
            if let reason = health.refusedWrite {
                return .teamFailed(.redisRefusesWrites(redis: connection.address.display, reason: reason))
            }
            return .team(health)
        } catch {
            return .teamFailed(problem(error))
        }
    }

    public func sharedValue(_ name: String, for owner: BudgetOwner) -> String? {
        sharedValue(Keys.shared(name, owner: owner))
    }

    public func share(_ value: String?, as name: String, for owner: BudgetOwner, forSeconds seconds: Int) {
        share(value, under: Keys.shared(name, owner: owner), forSeconds: seconds)
    }

    /// A value the team shares under `key`; nil when there is none or the Redis cannot be reached.
    public func sharedValue(_ key: String) -> String? {
        (try? whenReachable { () throws(RedisFailure) in try connection.command(["GET", key]).text }) ?? nil
    }

    /// Shares `value` under `key` for `seconds` (nil forgets it); false when the Redis cannot be reached.
    @discardableResult
    public func share(_ value: String?, under key: String, forSeconds seconds: Int) -> Bool {
        let words = value.map { ["SET", key, $0, "EX", String(seconds)] } ?? ["DEL", key]
        return (try? whenReachable { () throws(RedisFailure) in _ = try connection.command(words) }) != nil
    }

    /// Runs `body` against the Redis unless it failed moments ago: nil (after one warning line) when it cannot be
    /// reached, so the caller falls back to this machine. A refused password is thrown: a configuration to fix.
    func whenReachable<T>(_ body: () throws(RedisFailure) -> T) throws(AppError) -> T? {
        let time = MonotonicClock.now()
        if health.withLock({ $0.down && time < $0.retryAt }) { return nil }
        do throws(RedisFailure) {
            let result = try body()
            health.withLock { $0.down = false }
            return result
        } catch {
            if error.isMisconfiguration { throw problem(error) }
            let why = error.reason
            let first = health.withLock { state in
                defer { state = (true, MonotonicClock.now() + Self.retryInterval, why) }
                return !state.down
            }
            if first { warn("warning: " + Self.cannotBeUsed(connection.address.display, why: why)) }
            return nil
        }
    }

    /// What `doctor` says of a Redis that failed its check.
    public func problem(_ failure: RedisFailure) -> AppError { failure.problem(at: connection.address.display) }

    /// Set while the Redis could not be reached at the last try: this machine paces alone until it can.
    public var unavailable: String? {
        let (down, _, why) = health.withLock { $0 }
        return down ? Self.cannotBeUsed(connection.address.display, why: why) : nil
    }

    /// The words for a Redis that cannot be used, in the warning line and on the board's bottom line alike.
    static func cannotBeUsed(_ redis: String, why: String) -> String {
        "the Redis at \(redis) cannot be used (\(why)); pacing covers this machine only until it can"
    }

    /// An error for a lock that could not be taken or kept because the Redis failed.
    func unavailable(_ failure: RedisFailure, doing what: String) -> AppError {
        failure.isMisconfiguration
            ? .redisRefused(redis: connection.address.display, reason: failure.reason)
            : .teamLockUnavailable(redis: connection.address.display, reason: failure.reason, doing: what)
    }
}

/// Reserves each request's slot in the team's Redis: the base's budget and the token's, two scripts in one write
/// (each script one hash tag, so one slot), timed by Redis's clock so machines whose clocks disagree still agree.
final class RedisPacer: RequestPacer {
    let team: TeamCoordination
    let owner: BudgetOwner
    let keys: TeamCoordination.Keys
    let fallback: any RequestPacer
    /// When the latest slot Redis gave this process goes, on the monotonic clock.
    private let lastRedisSlot = Locked<Double?>(nil)

    init(team: TeamCoordination, owner: BudgetOwner, keys: TeamCoordination.Keys, fallback: any RequestPacer) {
        self.team = team
        self.owner = owner
        self.keys = keys
        self.fallback = fallback
    }

    /// How far ahead a schedule in Redis may lie before the budget script discards it.
    static let horizon = "\(Int(PaceSchedule.horizon))"

    var scheduleKeeper: String? { "the team's Redis at \(team.connection.address.display)" }

    func nextTurn() throws(AppError) -> Double { try reserveTurn(notBefore: 0).wait }

    func reserveTurn(notBefore delay: Double, spread: Double) throws(AppError) -> PaceTurn {
        guard let turn = try run("reserve", slots: [:], spread: spread) else {
            // This machine's slot file has not seen the slots Redis gave: the first of its own go one window after the
            // last of those, so the switch never bursts into a window Redis already filled.
            let window = PaceSchedule.window(for: owner.requestsPerSecond).seconds
            let now = MonotonicClock.now()
            let clear = lastRedisSlot.withLock { $0 }.map { $0 + window - now } ?? 0
            return try fallback.reserveTurn(notBefore: max(delay, clear), spread: spread)
        }
        // A delay asked for (none is, from the helper) is kept by waiting at least that long for the slot.
        return PaceTurn(wait: max(delay, turn.wait), slots: turn.slots, spread: spread)
    }

    func confirmTurn(_ turn: PaceTurn) throws(AppError) -> PaceTurn {
        // A turn this machine's slot file gave (the Redis was down) is confirmed there.
        guard turn.slots[keys.budget] != nil else { return try fallback.confirmTurn(turn) }
        // A Redis gone since the turn was given: the request goes on the slot it has, as this machine alone would.
        return try run("confirm", slots: turn.slots, spread: turn.spread)
            ?? PaceTurn(wait: 0, slots: turn.slots, spread: turn.spread)
    }

    /// The base's and the token's budget scripts in one write; nil when the Redis cannot be reached.
    private func run(_ mode: String, slots: [String: Double], spread: Double = 0) throws(AppError) -> PaceTurn? {
        let connection = team.connection
        let budgets = [
            (keys.budget, owner.requestsPerSecond, mode == "reserve" ? [keys.budget, keys.seen] : [keys.budget]),
            (keys.tokenBudget, owner.tokenRequestsPerSecond, [keys.tokenBudget]),
        ]
        let answers = try team.whenReachable { () throws(RedisFailure) in
            try connection.evaluate(
                budgets.map { key, rate, scriptKeys in
                    let slot = slots[key].map { "\($0)" } ?? "0"
                    return (
                        RedisScripts.budget, scriptKeys,
                        [mode, "\(rate)", "0", team.processID, Self.horizon, slot, "\(spread)"]
                    )
                })
        }
        guard let answers else { return nil }
        let now = MonotonicClock.now()
        var turn = PaceTurn(wait: 0, spread: spread)
        for ((key, _, _), answer) in zip(budgets, answers) {
            // {go, wait in microseconds, the slot held}; anything else (a Redis that is not one) lets the request go.
            guard case .array(let parts?) = answer, parts.count == 3, case .integer(let go) = parts[0],
                case .integer(let micros) = parts[1], let slot = parts[2].text.flatMap(Double.init)
            else { continue }
            turn.slots[key] = slot
            if go == 0 { turn.wait = max(turn.wait, Double(max(0, micros)) / 1_000_000) }
        }
        lastRedisSlot.withLock { $0 = max($0 ?? 0, now + turn.wait) }
        return turn
    }

    /// The schedule in Redis, on Redis's clock; this machine's when the Redis cannot be read.
    func currentPace() -> CurrentPace? {
        let connection = team.connection
        let read = try? team.whenReachable { () throws(RedisFailure) in
            try connection.call([["GET", keys.budget], ["TIME"]])
        }
        guard let answers = read ?? nil, answers.count == 2, let now = answers[1].redisTime else {
            return fallback.currentPace()
        }
        let schedule = PaceSchedule(text: answers[0].text ?? "", now: now)
        return CurrentPace(schedule, at: now, configured: owner.requestsPerSecond)
    }

    func rateLimited(holdingFor seconds: Double) {
        // This machine holds back too, so its processes stay held if the Redis goes away during the lockout.
        fallback.rateLimited(holdingFor: seconds)
        let connection = team.connection
        _ = try? team.whenReachable { () throws(RedisFailure) in
            try connection.evaluate([
                (
                    RedisScripts.budget, [keys.budget],
                    ["hold", "\(owner.requestsPerSecond)", "\(seconds)", team.processID, Self.horizon]
                )
            ])
        }
    }
}

extension TeamCoordination {
    /// What `doctor` reports of the team's Redis.
    /// What `doctor` finds of the team's Redis.
    public typealias Health = TeamHealth

    /// Checks the Redis as every command would use it: connected and authenticated, a round trip, a script run, a
    /// write taken, its clock against `wallClock` (seconds since 1970), and the processes seen on `owner`'s budget.
    public func health(for owner: BudgetOwner, wallClock: () -> Double) throws(RedisFailure) -> Health {
        _ = try connection.command(["PING"])
        let started = MonotonicClock.now()
        _ = try connection.command(["PING"])
        let roundTrip = MonotonicClock.now() - started
        let keys = Keys(owner)
        // The renewal script on a lock nobody holds: it runs, and changes nothing.
        _ = try connection.evaluate([(RedisScripts.renew, [Keys.lock(["doctor"], baseID: owner.baseID)], ["-", "1"])])
        let asked = wallClock()
        guard let redisNow = try connection.command(["TIME"]).redisTime else {
            throw .replied("TIME answered in an unexpected shape")
        }
        let skew = redisNow - (asked + wallClock()) / 2
        let counted = try connection.command(["ZCOUNT", keys.seen, "\(redisNow - 60)", "+inf"])
        guard case .integer(let processes) = counted else { throw .replied("ZCOUNT answered in an unexpected shape") }
        var health = Health(roundTrip: roundTrip, clockSkew: skew, processes: processes)
        // A write, as every command's budget makes one: a Redis at its memory limit under noeviction answers the
        // reads and the script above, and refuses this (the team's copy is then not refreshed either).
        do throws(RedisFailure) {
            _ = try connection.command(["SET", Keys.shared("doctor", owner: owner), "1", "PX", "1000"])
        } catch .replied(let reason) {
            health.refusedWrite = reason
        }
        // A Redis that refuses INFO (some managed ones rename it) cannot be told: nothing is said of eviction.
        if let info = (try? connection.command(["INFO", "memory"]))?.text {
            health.evicting = Health.evictionPolicy(fromInfo: info)
        }
        return health
    }
}

/// The month's counts in the team's Redis, one hash per base and month that every machine counts into (it expires
/// after the month); this machine's file while the Redis cannot be reached.
final class RedisUsageLedger: UsageLedger {
    let team: TeamCoordination
    let owner: BudgetOwner
    let fallback: FileUsageLedger
    let wallClock: @Sendable () -> Double

    init(
        team: TeamCoordination, owner: BudgetOwner, fallback: FileUsageLedger,
        wallClock: @escaping @Sendable () -> Double
    ) {
        (self.team, self.owner, self.fallback, self.wallClock) = (team, owner, fallback, wallClock)
    }

    var keeper: String { "the team's Redis at \(team.connection.address.display)" }

    /// The month's key; kept 40 days past the month's start, so a month is read whole until the next ends.
    func key(_ month: String) -> String { TeamCoordination.Keys.shared("usage:\(month)", owner: owner) }
    static let keptSeconds = "\(40 * 86_400)"

    func count(face: String, use: RequestUse) {
        let key = key(MonthUsage.month(at: wallClock()))
        let connection = team.connection
        let counted = try? team.whenReachable { () throws(RedisFailure) -> Bool in
            _ = try connection.call([
                ["HINCRBY", key, "\(face) \(use.rawValue)", "1"], ["EXPIRE", key, Self.keptSeconds],
            ])
            return true
        }
        if counted != true { fallback.count(face: face, use: use) }
    }

    func markSpent() {
        let key = key(MonthUsage.month(at: wallClock()))
        let connection = team.connection
        let now = wallClock()
        let marked = try? team.whenReachable { () throws(RedisFailure) -> Bool in
            _ = try connection.call([["HSET", key, "spent", "\(now)"], ["EXPIRE", key, Self.keptSeconds]])
            return true
        }
        if marked != true { fallback.markSpent() }
    }

    func thisMonth() -> MonthUsage? {
        let month = MonthUsage.month(at: wallClock())
        let connection = team.connection
        let answer = try? team.whenReachable { () throws(RedisFailure) in
            try connection.call([["HGETALL", key(month)]])
        }
        guard let answers = answer ?? nil, case .array(let parts?)? = answers.first else { return fallback.thisMonth() }
        let words = parts.map { $0.text ?? "" }
        let fields = stride(from: 0, to: words.count - 1, by: 2).map { (words[$0], words[$0 + 1]) }
        return MonthUsage(month: month, fields: fields)
    }
}
