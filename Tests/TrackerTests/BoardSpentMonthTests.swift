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

    /// Ticks counted over `seconds` of a board checking every half second, focused (someone looks all along).
    func ticks(spent: Bool, over seconds: Double) async -> Int {
        let count = Locked(0)
        let watch = Locked(BoardWatch(every: 0.5))
        _ = watch.withLock { $0.heard(.focusIn) }
        let ticker = BoardWatch.ticking(
            every: 0.5, watch: watch, usage: Ledger(spent: spent), configuration: Self.configuration
        ) { count.withLock { $0 += 1 } }
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        ticker.cancel()
        return count.withLock { $0 }
    }

    /// Broken by a first check at the board's own interval (the first read found the month spent, the ticking had
    /// not yet asked), or by a look that brings a check forward: the board then checks again within seconds.
    @Test func aSpentMonthHoldsTheBoardsChecksWhileSomeoneLooks() async {
        #expect(await ticks(spent: true, over: 2.5) == 0)
    }

    @Test func aMonthNotSpentIsCheckedAtTheBoardsInterval() async {
        #expect(await ticks(spent: false, over: 2.5) >= 3)
    }
}
