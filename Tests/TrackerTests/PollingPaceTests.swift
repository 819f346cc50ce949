import Foundation
import Testing

@testable import TrackerBoard
@testable import TrackerNetwork

/// A face nobody looks at polls less: its interval doubles round by round to 5 minutes, a look brings it back, the
/// plan's background share stretches it as the month requires, and a spent month leaves one try in 10 minutes.
@Suite(.timeLimit(.minutes(1)))
struct PollingPaceTests {
    /// 2026-11-29 12:00 UTC: 1.5 days of November left.
    static let lateNovember = 1_795_953_600.0

    @Test func nobodyLookingDoublesTheIntervalToFiveMinutesAndALookBringsItBack() {
        var pace = PollingPace(every: 10)
        var intervals: [Double] = []
        for _ in 0..<7 {
            pace.roundEnded(looked: false)
            intervals.append(pace.idleInterval)
        }
        #expect(intervals == [20, 40, 80, 160, 300, 300, 300])
        #expect(pace.isBackedOff)
        pace.roundEnded(looked: true)
        #expect(pace.idleInterval == 10 && !pace.isBackedOff)
        // A face whose own interval is longer than the cap keeps its own.
        var slow = PollingPace(every: 600)
        slow.roundEnded(looked: false)
        #expect(slow.idleInterval == 600)
    }

    @Test func theBackgroundShareSpreadsWhatIsLeftOverTheDaysLeft() {
        let pace = PollingPace(every: 10)
        // Free plan, half for the background: 500, 380 spent: 120 left for 1.5 days (129,600 s): one every 1,080 s.
        let month = MonthUsage(month: "2026-11", counts: [.init(face: "mcp", use: .upkeep, requests: 380)])
        let stretched = pace.interval(month: month, at: Self.lateNovember, monthlyCalls: 1_000, backgroundShare: 0.5)
        #expect(abs(stretched - 129_600.0 / 120) < 1e-6)
        // What people asked for does not count against the background's share: all 500 left, one every 259.2 s.
        let asked = MonthUsage(month: "2026-11", counts: [.init(face: "cli", use: .read, requests: 900)])
        let unspent = pace.interval(month: asked, at: Self.lateNovember, monthlyCalls: 1_000, backgroundShare: 0.5)
        #expect(abs(unspent - 129_600.0 / 500) < 1e-6)
        // Without a limit (business, or not told) nothing is stretched; a share spent, one check an hour.
        #expect(pace.interval(month: month, at: Self.lateNovember, monthlyCalls: nil, backgroundShare: 0.5) == 10)
        let spentShare = MonthUsage(month: "2026-11", counts: [.init(face: "board", use: .upkeep, requests: 500)])
        #expect(
            pace.interval(month: spentShare, at: Self.lateNovember, monthlyCalls: 1_000, backgroundShare: 0.5)
                == PollingPace.longestStretch)
        // A team plan's month has room: 10 s stays 10 s.
        #expect(pace.interval(month: month, at: Self.lateNovember, monthlyCalls: 100_000, backgroundShare: 0.5) == 10)
    }

    @Test func aMonthAirtableSaysIsSpentLeavesOneTryInTenMinutesUntilItTurns() {
        let pace = PollingPace(every: 10)
        let spent = MonthUsage(month: "2026-11", spentAt: Self.lateNovember - 60)
        #expect(pace.interval(month: spent, at: Self.lateNovember, monthlyCalls: nil, backgroundShare: 0.5) == 600)
        // In December, November's word no longer holds.
        #expect(
            pace.interval(month: spent, at: Self.lateNovember + 3 * 86_400, monthlyCalls: nil, backgroundShare: 0.5)
                == 10)
    }

    @Test func theBoardCountsKeysAndFocusAsLooksButNotLosingFocus() {
        var watch = BoardWatch(every: 60)
        watch.tickEnded()  // the first check: the board was just opened (a look)
        #expect(!watch.pace.isBackedOff)
        watch.tickEnded()
        watch.tickEnded()
        #expect(watch.pace.idleInterval == 240, "two checks with nobody looking")
        let woke = watch.heard(.character("j"))
        #expect(woke, "a key after the board slowed asks for a check now")
        #expect(watch.pace.idleInterval == 60)
        let lost = watch.heard(.focusOut)
        #expect(!lost)
        watch.tickEnded()
        watch.tickEnded()
        #expect(watch.pace.isBackedOff, "no key and no focus")
        let focused = watch.heard(.focusIn)
        #expect(focused)
        for _ in 0..<3 { watch.tickEnded() }
        #expect(!watch.pace.isBackedOff, "a focused board is looked at")
    }

    @Test func focusReportsAreReadAsTheirOwnKeys() {
        let (keys, rest) = KeyParser.parse(Array("\u{1B}[Ij\u{1B}[O".utf8))
        #expect(keys == [.focusIn, .character("j"), .focusOut])
        #expect(rest.isEmpty)
    }
}
