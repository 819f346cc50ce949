#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerNetwork
import TrackerOperations
import TrackerSystem

/// Whether anyone looks at the board, and so how often it may check for changes: a key is a look, and so is focus
/// where the terminal reports it (`CSI ? 1004 h`); a board with no key pressed and no focus slows, doubling its interval
/// round by round up to 5 minutes, and the first key or focus after brings it up to date at once.
package struct BoardWatch: Sendable, Equatable {
    package var pace: PollingPace
    /// Whether the terminal's window has focus; nil while the terminal has said nothing of it.
    package private(set) var focused: Bool?
    private var lookedSinceTick = true

    package init(every: Double) { pace = PollingPace(every: every) }

    /// Hears a key (or a focus report); true when the board had slowed and should check for changes now.
    package mutating func heard(_ key: Key) -> Bool {
        switch key {
        case .focusOut:
            focused = false
            return false
        case .focusIn:
            focused = true
        default: break
        }
        let slowed = pace.isBackedOff
        pace.looked()
        lookedSinceTick = true
        return slowed
    }

    /// Whether someone looks now: focused, or a key since the last check.
    package var isLookedAt: Bool { lookedSinceTick || focused == true }

    /// A check is done: the pace doubles when nobody looked since the last.
    package mutating func tickEnded() {
        pace.roundEnded(looked: isLookedAt)
        lookedSinceTick = false
    }
}

extension BoardWatch {
    /// Calls `tick` at each check's moment, worked out after each: the board's interval while someone looks, slower
    /// while nobody does or the month's background share requires (the month's count read once a check); a look after
    /// it slowed brings the next check forward to now. Once Airtable says the month is spent (found by any read: the
    /// first screen's, another face's), checks hold to one in 10 minutes from the last, and no look brings one
    /// forward: only a person's refresh key asks sooner.
    static func ticking(
        every: Double, watch: Locked<BoardWatch>, usage: any UsageLedger, configuration: Configuration,
        wallClock: @escaping @Sendable () -> Double = { Double(time(nil)) }, tick: @escaping @Sendable () -> Void
    ) -> Task<Void, Never> {
        let (calls, share) = (configuration.plan?.calls, configuration.backgroundShare)
        return Task {
            // The board's first read starts as the ticking does.
            var last = MonotonicClock.now()
            var due = last + every
            var heldUntil = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 250_000_000)
                if Task.isCancelled { return }
                let now = MonotonicClock.now()
                guard now >= heldUntil else { continue }
                let woken = watch.withLock { $0.pace.idleRounds == 0 && due - now > every }
                guard now >= due || woken else { continue }
                if now - last < PollingPace.spentRetry, Self.isSpent(usage.thisMonth(), at: wallClock()) {
                    heldUntil = last + PollingPace.spentRetry
                    due = heldUntil
                    continue
                }
                tick()
                last = now
                let pace = watch.withLock { watch in
                    watch.tickEnded()
                    return watch.pace
                }
                let (month, wall) = (usage.thisMonth(), wallClock())
                let interval = pace.interval(month: month, at: wall, monthlyCalls: calls, backgroundShare: share)
                due = MonotonicClock.now() + interval
                if Self.isSpent(month, at: wall) { heldUntil = due }
            }
        }
    }

    /// Whether Airtable said the month of `time` is spent.
    static func isSpent(_ month: MonthUsage?, at time: Double) -> Bool {
        guard let spent = month?.spentAt else { return false }
        return MonthUsage.month(at: spent) == MonthUsage.month(at: time)
    }
}
