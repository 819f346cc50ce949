import Foundation

/// Spaces requests to one base so they stay under Airtable's per-second limit.
public protocol RequestPacer: Sendable {
    /// Takes the next send slot and returns how many seconds to wait for it.
    func nextTurn() -> Double
    /// Airtable answered 429: hold every request back for `seconds`, and slow the pace after that.
    func rateLimited(holdingFor seconds: Double)
}

/// A pacer that never waits, for tests and for endpoints with no limit.
public struct UnlimitedPacer: RequestPacer {
    public init() {}
    public func nextTurn() -> Double { 0 }
    public func rateLimited(holdingFor seconds: Double) {}
}

/// The pacing schedule of one base: the next free send slot, and how much slower than the configured rate to go
/// after a 429. All times are on the machine-wide monotonic clock.
struct PaceSchedule: Equatable {
    /// When the next request may go.
    var next = 0.0
    /// How many times the configured interval to wait between requests just after the last 429 (1 = full speed).
    var slowdown = 1.0
    /// When requests resumed after the last 429.
    var resumed = 0.0

    /// The pace stays this slow for a while after a 429, then recovers to full speed over `recovery` seconds: two
    /// machines that cannot share a schedule then settle under the limit together instead of tripping it again.
    static let calm = 30.0
    static let recovery = 90.0
    static let firstSlowdown = 2.5
    static let maximumSlowdown = 10.0

    /// How many times the configured interval to wait at `now`.
    func factor(at now: Double) -> Double {
        guard slowdown > 1 else { return 1 }
        let progress = min(1, max(0, now - resumed - Self.calm) / Self.recovery)
        return slowdown - (slowdown - 1) * progress
    }

    /// Takes the next slot for a request at `now` and returns how long to wait for it.
    mutating func reserve(at now: Double, interval: Double) -> Double {
        let slot = max(now, next)
        next = slot + interval * factor(at: slot)
        return slot - now
    }

    /// Records a 429 at `now`: nothing goes for `seconds`, and then at a slower pace (slower still if already slow).
    mutating func rateLimited(at now: Double, holdingFor seconds: Double) {
        let resume = now + seconds
        // Several processes report the same lockout; only the first report of it slows the pace further.
        if resume > next + 1 || slowdown <= 1 {
            slowdown = min(Self.maximumSlowdown, max(Self.firstSlowdown, factor(at: now) * 2))
        }
        next = max(next, resume)
        resumed = max(resumed, resume)
    }

    /// The schedule as stored in the slot file.
    var text: String { "\(next) \(slowdown) \(resumed)" }

    /// A stored schedule; one far in the future is left from before a reboot (the monotonic clock restarted).
    init(text: String, now: Double) {
        let numbers = text.split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard numbers.count == 3, numbers[0] <= now + 3600, numbers[2] <= now + 3600 else { return }
        (next, slowdown, resumed) = (numbers[0], max(1, numbers[1]), numbers[2])
    }

    init() {}
}

/// Shares one schedule of send slots between every tracker process on the machine through a locked file.
///
/// Each request reserves a slot under `flock` and then sleeps until it, so several cron jobs started in the same
/// second queue up instead of bursting into a 30-second lockout. Without a usable runtime directory the schedule is
/// kept in the process.
public final class FileRequestPacer: RequestPacer {
    private let directory: RuntimeDirectory
    private let name: String
    private let interval: Double
    private let now: @Sendable () -> Double
    private let fallback = Locked(PaceSchedule())

    /// Paces to `requestsPerSecond` through the slot file `name` in `directory`.
    public init(
        directory: RuntimeDirectory, name: String, requestsPerSecond: Double,
        now: @escaping @Sendable () -> Double = MonotonicClock.now
    ) {
        self.directory = directory
        self.name = name
        // A 5% margin keeps network jitter from squeezing six requests into one second at the server.
        self.interval = 1.05 / requestsPerSecond
        self.now = now
    }

    /// The slot file's name for a base: one schedule per endpoint and base, as Airtable limits per base.
    public static func slotName(endpoint: URL, baseID: String) -> String {
        let key = "\(endpoint.host ?? "")-\(endpoint.port ?? 0)-\(baseID)"
        return "pace-"
            + String(key.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" })
    }

    public func nextTurn() -> Double {
        update { schedule, now in schedule.reserve(at: now, interval: interval) }
    }

    public func rateLimited(holdingFor seconds: Double) {
        update { schedule, now in schedule.rateLimited(at: now, holdingFor: seconds) }
    }

    /// Changes the shared schedule under an exclusive lock on the slot file.
    @discardableResult
    private func update<T>(_ change: (inout PaceSchedule, Double) -> T) -> T {
        let fd = directory.open(name)
        guard fd >= 0 else { return fallback.withLock { change(&$0, now()) } }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = pread(fd, &buffer, 127, 0)
        let time = now()
        var schedule = PaceSchedule(
            text: count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "", now: time)
        let result = change(&schedule, time)
        let text = Array(schedule.text.utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        return result
    }
}
