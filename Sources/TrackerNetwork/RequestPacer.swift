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

/// Spaces requests to one base so they stay under Airtable's per-second limit.
public protocol RequestPacer: Sendable {
    /// Takes the next send slot and returns how many seconds to wait for it; throws when the shared budget refuses
    /// tracker (a team's Redis that rejects its password).
    func nextTurn() throws(AppError) -> Double
    /// Takes the next send slot no sooner than `delay` seconds from now, and returns how long to wait for it.
    func nextTurn(notBefore delay: Double) throws(AppError) -> Double
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

    public func nextTurn(notBefore delay: Double) throws(AppError) -> Double { max(delay, try nextTurn()) }
}

/// A pacer that never waits, for tests and for endpoints with no limit.
struct UnlimitedPacer: RequestPacer {
    public init() {}
    func nextTurn() -> Double { 0 }
    func rateLimited(holdingFor seconds: Double) {}
}

/// The pacing schedule of one base: when the latest requests went (or will go), how long a 429 holds everything
/// back, and how much slower than the configured rate to go after one. All times are on the machine-wide monotonic
/// clock.
///
/// Airtable allows 5 requests in any second, so requests that do not depend on each other may go together: at most
/// `capacity` requests fall in any window of `window` seconds (5 in 1.05 s at the default pace), rather than one every
/// 0.21 s.
struct PaceSchedule: Equatable {
    /// Nothing goes before this (a 429's lockout).
    var hold = 0.0
    /// How many times the window to use just after the last 429 (1 = full speed).
    var slowdown = 1.0
    /// When requests resumed after the last 429.
    var resumed = 0.0
    /// The latest send slots, in order (at most `maximumCapacity`).
    var sent: [Double] = []

    /// The pace stays this slow for a while after a 429, then recovers to full speed over `recovery` seconds: two
    /// machines that cannot share a schedule then settle under the limit together instead of tripping it again.
    static let calm = 30.0
    static let recovery = 90.0
    static let firstSlowdown = 2.5
    static let maximumSlowdown = 10.0
    /// The most requests one window may hold (a pace above 10/s gets a shorter window instead).
    static let maximumCapacity = 10

    /// How many times the window to use at `now`.
    func factor(at now: Double) -> Double {
        guard slowdown > 1 else { return 1 }
        let progress = min(1, max(0, now - resumed - Self.calm) / Self.recovery)
        return slowdown - (slowdown - 1) * progress
    }

    /// The requests a window may hold, and its length, for `requestsPerSecond`. A 5% margin keeps network jitter from
    /// squeezing more into one second at the server.
    static func window(for requestsPerSecond: Double) -> (capacity: Int, seconds: Double) {
        let capacity = min(maximumCapacity, max(1, Int(requestsPerSecond.rounded(.down))))
        return (capacity, 1.05 * Double(capacity) / requestsPerSecond)
    }

    /// Takes the next slot for a request at `now` and returns how long to wait for it. Slots never go backwards, so
    /// the last `capacity` of them are all a window needs to be checked against.
    mutating func reserve(at now: Double, requestsPerSecond: Double) -> Double {
        var (capacity, seconds) = Self.window(for: requestsPerSecond)
        var slot = max(now, hold, sent.last ?? 0)
        let slower = factor(at: slot)
        if slower > 1 {
            // After a 429 requests go one at a time, evenly spaced: bursts from two machines that cannot share a
            // schedule would otherwise land in the same second and trip the limit again.
            (capacity, seconds) = (1, 1.05 * slower / requestsPerSecond)
        }
        if sent.count >= capacity { slot = max(slot, sent[sent.count - capacity] + seconds) }
        sent.append(slot)
        if sent.count > Self.maximumCapacity { sent.removeFirst(sent.count - Self.maximumCapacity) }
        return slot - now
    }

    /// Records a 429 at `now`: nothing goes for `seconds`, and then at a slower pace (slower still if already slow).
    mutating func rateLimited(at now: Double, holdingFor seconds: Double) {
        let resume = now + seconds
        // Several processes report the same lockout; only the first report of it slows the pace further.
        if resume > hold + 1 || slowdown <= 1 {
            slowdown = min(Self.maximumSlowdown, max(Self.firstSlowdown, factor(at: now) * 2))
        }
        hold = max(hold, resume)
        resumed = max(resumed, resume)
        // The lockout starts a new count: the window fills again from when requests resume.
        sent.removeAll()
    }

    /// How far ahead of now a stored schedule may lie: tracker writes no hold longer than `longestHold`, plus the
    /// slots of a slowed window after it. A schedule beyond this was not written by tracker as it is (a clock that
    /// stepped back, a hand's mistake) and is discarded rather than waited for.
    public static let horizon = 600.0
    /// The longest hold after a 429 that tracker shares: Airtable's lockout is 30 s; a `Retry-After` longer than this
    /// is not passed on to every other process.
    public static let longestHold = 300.0

    /// The schedule as stored in the slot file: hold, slowdown, resumed, then the latest slots.
    public var text: String { ([hold, slowdown, resumed] + sent).map { "\($0)" }.joined(separator: " ") }

    /// A stored schedule; one far in the future is left from before a reboot (the monotonic clock restarted).
    public init(text: String, now: Double) {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        guard numbers.count >= 3, numbers.allSatisfy({ $0 <= now + Self.horizon }) else { return }
        (hold, slowdown, resumed) = (numbers[0], max(1, numbers[1]), numbers[2])
        sent = Array(numbers.dropFirst(3).suffix(Self.maximumCapacity))
    }

    public init() {}
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
    init(_ schedule: PaceSchedule, at now: Double, configured: Double) {
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

    public func nextTurn(notBefore delay: Double) -> Double {
        update { schedule, now in
            delay + schedule.reserve(at: now + max(0, delay), requestsPerSecond: requestsPerSecond)
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
        let fd = directory.open(name)
        guard fd >= 0 else { return fallback.withLock { change(&$0, now()) } }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = pread(fd, &buffer, 1023, 0)
        let time = now()
        var schedule = PaceSchedule(
            text: count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "", now: time)
        let result = change(&schedule, time)
        // Padded with spaces over the old text rather than truncated: truncating a file costs more than the rest.
        var text = Array(schedule.text.utf8)
        if count > text.count { text += [UInt8](repeating: UInt8(ascii: " "), count: count - text.count) }
        _ = pwrite(fd, text, text.count, 0)
        return result
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
        max(try base.nextTurn(notBefore: delay), try token.nextTurn(notBefore: delay))
    }

    public func rateLimited(holdingFor seconds: Double) { base.rateLimited(holdingFor: seconds) }

    public var scheduleKeeper: String? { base.scheduleKeeper }

    /// The base's: a 429 slows the base, not the token.
    public func currentPace() -> CurrentPace? { base.currentPace() }
}
