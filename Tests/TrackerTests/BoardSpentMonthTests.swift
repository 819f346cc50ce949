import Foundation
import Testing
import TrackerNetwork
import TrackerSystem

@testable import TrackerBoard
@testable import TrackerOperations

/// A board told the month is spent stops checking until the month turns or a person asks (its refresh key): one try
/// in 10 minutes at most, however the month was found spent and whoever looks.
@Suite struct BoardSpentMonthTests {
    /// A month's count that says Airtable found it spent (or not).
    struct Ledger: UsageLedger {
        var spent: Bool
        func count(face: String, use: RequestUse) {}
        func markSpent() {}
        func thisMonth() -> MonthUsage? {
            let now = Date().timeIntervalSince1970
            return MonthUsage(month: MonthUsage.month(at: now), spentAt: spent ? now - 5 : nil)
        }
        var keeper: String { "a test" }
    }

    static let configuration = Configuration(
        token: "patTEST", baseID: "appTEST", table: "Design projects", endpoint: URL(string: "http://127.0.0.1:9")!,
        secretsPath: nil, environmentKeys: [])

    /// Seconds until a focused board (someone looks all along) checking every half second first checks; nil when it
    /// did not within `seconds`. Waited for, not timed: a busy machine only makes it later.
    func firstCheck(spent: Bool, within seconds: Double) async -> Double? {
        let checked = Locked<Double?>(nil)
        let watch = Locked(BoardWatch(every: 0.5))
        _ = watch.withLock { $0.heard(.focusIn) }
        let started = MonotonicClock.now()
        let ticker = BoardWatch.ticking(
            every: 0.5, watch: watch, usage: Ledger(spent: spent), configuration: Self.configuration
        ) { checked.withLock { $0 = $0 ?? MonotonicClock.now() - started } }
        while checked.withLock({ $0 }) == nil, MonotonicClock.now() - started < seconds {
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        ticker.cancel()
        return checked.withLock { $0 }
    }

    /// Broken by a first check at the board's own interval (the first read found the month spent, the ticking had
    /// not yet asked), or by a look that brings a check forward: the board then checks again within a second.
    @Test func aSpentMonthHoldsTheBoardsChecksWhileSomeoneLooks() async {
        #expect(await firstCheck(spent: true, within: 3) == nil)
    }

    /// The same board in a month not spent checks at its interval (what shows the one above is not a board that
    /// never checks).
    @Test func aMonthNotSpentIsChecked() async {
        #expect(await firstCheck(spent: false, within: 30) != nil)
    }
}
