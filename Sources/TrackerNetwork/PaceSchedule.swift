/// The pacing schedule of one base: the send slots still in play (taken, or confirmed as the moment a request left),
/// how long a 429 holds everything back, and how much slower than the configured rate to go after one. All times are
/// on the clock of whoever keeps the schedule (the machine-wide monotonic clock, or the team's Redis).
///
/// Airtable allows 5 requests in any second, so requests that do not depend on each other may go together: at most
/// `capacity` requests fall in any window of `window` seconds (5 in 1.05 s at the default pace), rather than one every
/// 0.21 s.
///
/// A slot is a promise made before the request sleeps; on a loaded machine the process may wake, and send, later
/// than it. A late request sent anyway lands in the next window's second beside the requests that were on time, and
/// the sixth in a second locks the whole base out for 30 s. So a request confirms its slot right before it leaves:
/// its slot moves to that moment if the window still holds it, else it takes the first slot that does and waits again.
package struct PaceSchedule: Equatable {
    /// One request's place: when it leaves and how much later than that it may arrive (`spread`). Airtable counts a
    /// request where it arrives, so a request is counted in every window its arrival may fall in.
    struct Slot: Equatable {
        var time: Double
        /// 0 for a request on a connection already open (its lag is within the windows' margin); `coldSpread` for one
        /// that opens a connection first.
        var spread = 0.0
        /// The latest moment it may arrive.
        var end: Double { time + spread }

        /// Whether its arrival may fall in the window starting at `start`, `seconds` long.
        func mayArrive(inWindowFrom start: Double, seconds: Double) -> Bool { time < start + seconds && end >= start }
    }

    /// Nothing goes before this (a 429's lockout).
    var hold = 0.0
    /// How many times the window to use just after the last 429 (1 = full speed).
    var slowdown = 1.0
    /// When requests resumed after the last 429.
    var resumed = 0.0
    /// The slots still in play, in order of leaving: the last window's and every one taken ahead (at most
    /// `maximumSlots`).
    var sent: [Slot] = []

    /// The pace stays this slow for a while after a 429, then recovers to full speed over `recovery` seconds: two
    /// machines that cannot share a schedule then settle under the limit together instead of tripping it again.
    static let calm = 30.0
    static let recovery = 90.0
    static let firstSlowdown = 2.5
    static let maximumSlowdown = 10.0
    /// The most requests one window may hold (a pace above 10/s gets a shorter window instead).
    static let maximumCapacity = 10
    /// The most slots a stored schedule keeps (a queue of processes far ahead): about 20 KB of text.
    static let maximumSlots = 1_000
    /// Airtable does not say where in a request it counts it; the stricter reading is when it arrives, which over the
    /// internet is later than it leaves, by a varying amount (tens of milliseconds on a connection already open).
    /// Slots are given 9% apart beyond the limit's second; a request that confirms later than its slot may still go
    /// while 7% is left: the rest, 70 ms, is kept for the difference in lag between two requests on open connections.
    static let givenMargin = 1.09
    static let keptMargin = 1.07
    /// How much later than it leaves a request that opens its connection may arrive: DNS, TCP and TLS first (100-300 ms
    /// to Airtable from most places; the stricter end), then the jitter every request has.
    static let coldSpread = 0.3
    /// A confirmation this much before its slot (a Redis round trip's difference in clocks) counts as on time.
    static let earlyTolerance = 0.002

    /// How many times the window to use at `now`.
    func factor(at now: Double) -> Double {
        guard slowdown > 1 else { return 1 }
        let progress = min(1, max(0, now - resumed - Self.calm) / Self.recovery)
        return slowdown - (slowdown - 1) * progress
    }

    /// The requests a window may hold, and its length, for `requestsPerSecond`, with `margin` beyond the limit's own.
    package static func window(for requestsPerSecond: Double, margin: Double = givenMargin) -> (
        capacity: Int, seconds: Double
    ) {
        let capacity = min(maximumCapacity, max(1, Int(requestsPerSecond.rounded(.down))))
        return (capacity, margin * Double(capacity) / requestsPerSecond)
    }

    /// The window at `time`: after a 429 requests go one at a time, evenly spaced, since bursts from two machines that
    /// cannot share a schedule would otherwise land in the same second and trip the limit again.
    func window(at time: Double, requestsPerSecond: Double, margin: Double) -> (capacity: Int, seconds: Double) {
        let slower = factor(at: time)
        guard slower > 1 else { return Self.window(for: requestsPerSecond, margin: margin) }
        return (1, margin * slower / requestsPerSecond)
    }

    /// Whether a request leaving at `time` and arriving within `spread` after keeps every window its arrival may fall
    /// in within its capacity, among the slots in play.
    func fits(_ time: Double, spread: Double = 0, requestsPerSecond: Double, margin: Double) -> Bool {
        guard time >= hold else { return false }
        let (capacity, seconds) = window(at: time, requestsPerSecond: requestsPerSecond, margin: margin)
        let new = Slot(time: time, spread: spread)
        let near = sent.filter { $0.end > time - 2 * seconds && $0.time < new.end + seconds }
        // The windows the new arrival may fall in start in (time - seconds, end]; the fullest of them starts at one
        // slot's latest arrival (each slot may arrive in the windows starting in (its time - seconds, its end]).
        for start in (near + [new]).map(\.end) where start > time - seconds && start <= new.end {
            let inside = near.filter { $0.mayArrive(inWindowFrom: start, seconds: seconds) }.count + 1
            if inside > capacity { return false }
        }
        return true
    }

    /// The first moment at or after `earliest` a request fits: `earliest` itself, or one window after a slot's end.
    func firstFit(from earliest: Double, spread: Double = 0, requestsPerSecond: Double) -> Double {
        let start = max(earliest, hold)
        if fits(start, spread: spread, requestsPerSecond: requestsPerSecond, margin: Self.givenMargin) { return start }
        let (_, seconds) = window(at: start, requestsPerSecond: requestsPerSecond, margin: Self.givenMargin)
        let widest = max(seconds, Self.reach(for: requestsPerSecond))
        let candidates = sent.flatMap { [$0.end + seconds, $0.end + widest] }.filter { $0 > start }.sorted()
        for candidate in candidates
        where fits(candidate, spread: spread, requestsPerSecond: requestsPerSecond, margin: Self.givenMargin) {
            return candidate
        }
        // A window after the last slot's end, at the slowest pace, always fits.
        return max(start, (sent.map(\.end).max() ?? start) + widest)
    }

    /// Takes the next slot for a request at `now`, no sooner than `earliest`, arriving within `spread` after it leaves,
    /// and returns how long to wait for it. Only slots that no window holding `now` can reach are forgotten: a later
    /// `earliest` must not drop slots other processes' requests still share a second with.
    mutating func reserve(
        at now: Double, requestsPerSecond: Double, notBefore earliest: Double? = nil, spread: Double = 0
    ) -> Double {
        forget(before: now, requestsPerSecond: requestsPerSecond)
        let slot = firstFit(from: max(now, earliest ?? now), spread: spread, requestsPerSecond: requestsPerSecond)
        insert(Slot(time: slot, spread: spread))
        return slot - now
    }

    /// Confirms, at `now`, the slot taken for a request that is about to leave, and returns the slot it holds now and
    /// whether it may go. It goes when its slot moved to this moment and the windows still hold it. Else it waits for
    /// the slot returned: its own when woken early; the first that fits when woken so late that going now would crowd
    /// a window (past the kept margin), or when a 429 wiped its slot.
    mutating func confirm(_ slot: Double, at now: Double, requestsPerSecond: Double, spread: Double = 0) -> (
        slot: Double, go: Bool
    ) {
        forget(before: now, requestsPerSecond: requestsPerSecond)
        let index = sent.firstIndex { abs($0.time - slot) < 2e-6 }
        if now < slot - Self.earlyTolerance, let index, sent[index].time >= hold { return (sent[index].time, false) }
        if let index { sent.remove(at: index) }
        let moment = max(now, min(slot, now + Self.earlyTolerance))
        if fits(moment, spread: spread, requestsPerSecond: requestsPerSecond, margin: Self.keptMargin) {
            insert(Slot(time: moment, spread: spread))
            return (moment, true)
        }
        let next = firstFit(from: now, spread: spread, requestsPerSecond: requestsPerSecond)
        insert(Slot(time: next, spread: spread))
        return (next, false)
    }

    /// The longest window any slot can share with a later one: the full pace's, or the slowest after a 429.
    static func reach(for requestsPerSecond: Double) -> Double {
        max(window(for: requestsPerSecond).seconds, givenMargin * maximumSlowdown / requestsPerSecond)
    }

    /// Drops the slots no window that holds `now` or later can reach.
    private mutating func forget(before now: Double, requestsPerSecond: Double) {
        let reach = Self.reach(for: requestsPerSecond)
        sent.removeAll { $0.end <= now - reach }
    }

    private mutating func insert(_ slot: Slot) {
        sent.insert(slot, at: sent.firstIndex { $0.time > slot.time } ?? sent.endIndex)
        if sent.count > Self.maximumSlots { sent.removeFirst(sent.count - Self.maximumSlots) }
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
        // The lockout starts a new count: the window fills again from when requests resume, and every slot taken
        // before it is taken again when its request confirms.
        sent.removeAll()
    }

    /// How far ahead of now a stored schedule may lie: tracker writes no hold longer than `longestHold`, plus the
    /// slots of a slowed window after it. A schedule beyond this was not written by tracker as it is (a clock that
    /// stepped back, a hand's mistake) and is discarded rather than waited for.
    package static let horizon = 600.0
    /// The longest hold after a 429 that tracker shares: Airtable's lockout is 30 s; a `Retry-After` longer than this
    /// is not passed on to every other process.
    public static let longestHold = 300.0

    /// The schedule as stored in the slot file: hold, slowdown, resumed, then the slots in play, each its time, or
    /// `time/spread` for one whose arrival may lag (a reader that knows no spread skips those words).
    public var text: String {
        ([hold, slowdown, resumed].map { "\($0)" }
            + sent.map { $0.spread > 0 ? "\($0.time)/\($0.spread)" : "\($0.time)" })
            .joined(separator: " ")
    }

    /// A stored schedule; one far in the future is left from before a reboot (the monotonic clock restarted).
    package init(text: String, now: Double) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        let numbers = words.prefix(3).compactMap { Double($0) }
        let slots = words.dropFirst(3).compactMap { word -> Slot? in
            let parts = word.split(separator: "/", maxSplits: 1)
            guard let time = parts.first.flatMap({ Double($0) }) else { return nil }
            let spread = parts.count == 2 ? Double(parts[1]) : 0
            guard let spread, spread >= 0, spread <= 1 else { return nil }
            return Slot(time: time, spread: spread)
        }
        guard numbers.count == 3, (numbers + slots.map(\.end)).allSatisfy({ $0.isFinite && $0 <= now + Self.horizon })
        else { return }
        (hold, slowdown, resumed) = (numbers[0], max(1, numbers[1]), numbers[2])
        sent = Array(slots.sorted { $0.time < $1.time }.suffix(Self.maximumSlots))
    }

    public init() {}
}
