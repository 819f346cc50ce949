#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerSystem
import TrackerModel

/// A request's place in the schedules that pace it: how long to wait, and each schedule's slot to confirm right
/// before it leaves.
public struct PaceTurn: Sendable, Equatable {
    /// Seconds to wait from when the turn was given; 0 or less: go now.
    public var wait: Double
    /// Each schedule's slot, by the schedule's name (a slot file, a Redis key), on its keeper's clock.
    public var slots: [String: Double]
    /// How much later than it leaves the request may arrive (a new connection's handshakes), in seconds.
    public var spread: Double

    public init(wait: Double, slots: [String: Double] = [:], spread: Double = 0) {
        self.wait = wait
        self.slots = slots
        self.spread = spread
    }

    /// Both turns: the longer wait, every slot.
    func joined(with other: PaceTurn) -> PaceTurn {
        PaceTurn(
            wait: max(wait, other.wait), slots: slots.merging(other.slots) { $1 }, spread: max(spread, other.spread))
    }
}

/// Spaces requests to one base so they stay under Airtable's per-second limit.
///
/// A request takes a turn, sleeps until it, and confirms it right before it leaves: a process woken late (a loaded
/// machine, a slow start) would otherwise send into the next window's second beside the requests that were on time.
/// A turn given for now, with nothing run before the request leaves, needs no confirming.
public protocol RequestPacer: Sendable {
    /// Takes the next send slot and returns how many seconds to wait for it; throws when the shared budget refuses
    /// tracker (a team's Redis that rejects its password).
    func nextTurn() throws(AppError) -> Double
    /// Takes the next send slot no sooner than `delay` seconds from now, and returns how long to wait for it.
    func nextTurn(notBefore delay: Double) throws(AppError) -> Double
    /// Takes the next send slot no sooner than `delay` seconds from now, for a request that may arrive up to `spread`
    /// seconds after it leaves, to be confirmed before the request leaves.
    func reserveTurn(notBefore delay: Double, spread: Double) throws(AppError) -> PaceTurn
    /// Confirms `turn` right before its request leaves: a wait of 0 or less says go now (the slots moved to this
    /// moment); a longer one gives the new turn to sleep until and confirm again.
    func confirmTurn(_ turn: PaceTurn) throws(AppError) -> PaceTurn
    /// Airtable answered 429: hold every request back for `seconds`, and slow the pace after that.
    func rateLimited(holdingFor seconds: Double)
    /// Who keeps the schedule when others than this machine's tracker processes can write it (the team's Redis), in
    /// words: a wait from it longer than the retry budget is refused, naming it. Nil for this machine's own schedule,
    /// whose waits are tracker's own (and whose stored times past `PaceSchedule.horizon` are discarded).
    var scheduleKeeper: String? { get }
    /// How fast requests may go at this moment, as the shared schedule says (slower for a while after a 429); nil
    /// when it cannot be told.
    func currentPace() -> CurrentPace?
}

extension RequestPacer {
    public var scheduleKeeper: String? { nil }

    public func currentPace() -> CurrentPace? { nil }

    /// Who asks for the wait a turn gives now, as a refusal names it: the schedule's keeper, else, on this machine,
    /// Airtable's 429 when its hold is what holds the schedule back.
    public var whoAsksTheWait: String {
        if let keeper = scheduleKeeper { return keeper }
        let held = (currentPace()?.heldFor ?? 0) > 0
        return held ? "Airtable's 429 hold on this machine" : "the base's schedule on this machine"
    }

    public func nextTurn(notBefore delay: Double) throws(AppError) -> Double { max(delay, try nextTurn()) }

    /// A pacer whose slots need no confirming (one that never waits, a test's).
    public func reserveTurn(notBefore delay: Double, spread: Double) throws(AppError) -> PaceTurn {
        PaceTurn(wait: try nextTurn(notBefore: delay), spread: spread)
    }

    /// A turn for a request on a connection already open.
    public func reserveTurn(notBefore delay: Double) throws(AppError) -> PaceTurn {
        try reserveTurn(notBefore: delay, spread: 0)
    }

    public func confirmTurn(_ turn: PaceTurn) throws(AppError) -> PaceTurn { PaceTurn(wait: 0, slots: turn.slots) }
}

/// A pacer that never waits, for tests and for endpoints with no limit.
struct UnlimitedPacer: RequestPacer {
    public init() {}
    func nextTurn() -> Double { 0 }
    func rateLimited(holdingFor seconds: Double) {}
}

/// How fast a shared schedule lets requests go at one moment.
public struct CurrentPace: Sendable, Equatable {
    /// The configured pace, requests a second.
    public var configured: Double
    /// The pace now: the configured one, or slower after a 429.
    public var requestsPerSecond: Double
    /// Seconds until requests may go at all (a 429's lockout), 0 when they may.
    public var heldFor: Double
    /// Seconds until the pace is the configured one again.
    public var fullIn: Double

    /// The pace of `schedule` at `now` for a configured `requestsPerSecond`.
    package init(_ schedule: PaceSchedule, at now: Double, configured: Double) {
        self.configured = configured
        requestsPerSecond = configured / schedule.factor(at: now)
        heldFor = max(0, schedule.hold - now)
        fullIn =
            schedule.slowdown > 1 ? max(0, schedule.resumed + PaceSchedule.calm + PaceSchedule.recovery - now) : 0
    }

    /// Whether a 429 still holds requests back or slows them.
    public var isSlowed: Bool { heldFor > 0 || requestsPerSecond < configured * 0.995 }

    /// "slowed to 1.9 requests a second after a 429 (5 set), full again in 2 min", or "held 12 s after a 429, …".
    public var words: String {
        func number(_ value: Double) -> String {
            value >= 10 || value == value.rounded()
                ? String(Int(value.rounded())) : String(Double(Int(value * 10)) / 10)
        }
        let minutes = Int((fullIn / 60).rounded(.up))
        let full = fullIn >= 60 ? "full again in \(minutes) min" : "full again in \(Int(fullIn.rounded(.up))) s"
        let held = heldFor > 0 ? "held \(Int(heldFor.rounded(.up))) s, then " : ""
        let pace = number(requestsPerSecond)
        let unit = pace == "1" ? "request" : "requests"
        return "\(held)slowed to \(pace) \(unit) a second after a 429 (\(number(configured)) set), \(full)"
    }
}

/// Shares one schedule of send slots between every tracker process on the machine through a locked file.
///
/// Each request reserves a slot under `flock` and then sleeps until it, so several cron jobs started in the same
/// second queue up instead of bursting into a 30-second lockout, while one command's independent requests still go
/// together. Without a usable runtime directory the schedule is kept in the process.
public final class FileRequestPacer: RequestPacer {
    private let directory: RuntimeDirectory
    private let name: String
    private let requestsPerSecond: Double
    private let now: @Sendable () -> Double
    private let fallback = Locked(PaceSchedule())

    /// Paces to `requestsPerSecond` through the slot file `name` in `directory`.
    public init(
        directory: RuntimeDirectory, name: String, requestsPerSecond: Double,
        now: @escaping @Sendable () -> Double = MonotonicClock.now
    ) {
        self.directory = directory
        self.name = name
        self.requestsPerSecond = requestsPerSecond
        self.now = now
    }

    /// The slot file's name for a base: one schedule per endpoint and base, as Airtable limits per base.
    public static func slotName(endpoint: URL, baseID: String) -> String {
        let key = "\(endpoint.host ?? "")-\(endpoint.port ?? 0)-\(baseID)"
        return "pace-"
            + String(
                key.unicodeScalars.map {
                    $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "_"
                })
    }

    /// Airtable's limit for one token across every base it reaches.
    public static let tokenRequestsPerSecond = 50.0

    /// The slot file's name for a token's budget: a hash, never the token.
    public static func slotName(endpoint: URL, token: String) -> String {
        "pace-token-\(endpoint.host ?? "")-\(endpoint.port ?? 0)-" + String(StableHash.of(token), radix: 16)
    }

    public func nextTurn() -> Double { nextTurn(notBefore: 0) }

    public func nextTurn(notBefore delay: Double) -> Double { reserveTurn(notBefore: delay, spread: 0).wait }

    public func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn {
        update { schedule, now in
            let slot =
                now
                + schedule.reserve(
                    at: now, requestsPerSecond: requestsPerSecond, notBefore: now + max(0, delay), spread: spread)
            return PaceTurn(wait: slot - now, slots: [name: slot], spread: spread)
        }
    }

    public func confirmTurn(_ turn: PaceTurn) -> PaceTurn {
        guard let slot = turn.slots[name] else { return PaceTurn(wait: 0, slots: turn.slots, spread: turn.spread) }
        return update { schedule, now in
            let (held, go) = schedule.confirm(
                slot, at: now, requestsPerSecond: requestsPerSecond, spread: turn.spread)
            return PaceTurn(wait: go ? 0 : held - now, slots: [name: held], spread: turn.spread)
        }
    }

    public func rateLimited(holdingFor seconds: Double) {
        update { schedule, now in schedule.rateLimited(at: now, holdingFor: seconds) }
    }

    public func currentPace() -> CurrentPace? {
        update { schedule, now in CurrentPace(schedule, at: now, configured: requestsPerSecond) }
    }

    /// Changes the shared schedule under an exclusive lock on the slot file.
    @discardableResult
    private func update<T>(_ change: (inout PaceSchedule, Double) -> T) -> T {
        // Room for every slot a schedule keeps (`PaceSchedule.maximumSlots`, about 20 KB of text).
        let changed = directory.changingText(name, capacity: 32_768, padding: UInt8(ascii: " ")) { text in
            let time = now()
            var schedule = PaceSchedule(text: text, now: time)
            let result = change(&schedule, time)
            text = schedule.text
            return (result, true)
        }
        return changed ?? fallback.withLock { change(&$0, now()) }
    }
}

/// Paces to two budgets at once, the base's and its token's: a request waits for whichever is further off. A 429 holds
/// back the base only, as Airtable's answer does not say which limit was reached and other bases may be fine.
public struct TwoBudgetPacer: RequestPacer {
    let base: any RequestPacer
    public let token: any RequestPacer

    public init(base: any RequestPacer, token: any RequestPacer) {
        self.base = base
        self.token = token
    }

    public func nextTurn() throws(AppError) -> Double { try nextTurn(notBefore: 0) }

    public func nextTurn(notBefore delay: Double) throws(AppError) -> Double {
        try reserveTurn(notBefore: delay).wait
    }

    public func reserveTurn(notBefore delay: Double, spread: Double) throws(AppError) -> PaceTurn {
        try base.reserveTurn(notBefore: delay, spread: spread).joined(
            with: try token.reserveTurn(notBefore: delay, spread: spread))
    }

    public func confirmTurn(_ turn: PaceTurn) throws(AppError) -> PaceTurn {
        try base.confirmTurn(turn).joined(with: try token.confirmTurn(turn))
    }

    public func rateLimited(holdingFor seconds: Double) { base.rateLimited(holdingFor: seconds) }

    public var scheduleKeeper: String? { base.scheduleKeeper }

    /// The base's: a 429 slows the base, not the token.
    public func currentPace() -> CurrentPace? { base.currentPace() }
}
