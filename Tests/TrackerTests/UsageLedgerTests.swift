import Foundation
import Testing

import TrackerAPI
@testable import TrackerModel
@_spi(Sending) @testable import TrackerNetwork
@testable import TrackerOperations
import TrackerSystem

/// The month's count: every request tracker sends to a base is counted in the month it is sent, by face and use,
/// where every process of the machine (or the team) counts; the report's pace, projection and share follow from it.
@Suite(.timeLimit(.minutes(1)))
struct UsageLedgerTests {
    /// 2026-11-29 12:00 UTC.
    static let lateNovember = 1_795_953_600.0
    static let owner = BudgetOwner(
        endpoint: URL(string: "https://api.airtable.com")!, baseID: "appUSAGE", token: "patX", requestsPerSecond: 5)

    private func ledger(_ directory: TemporaryDirectory, at time: Locked<Double>) -> FileUsageLedger {
        let runtime = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": directory.path + "/run"])
        return FileUsageLedger(directory: runtime, owner: Self.owner, wallClock: { time.withLock { $0 } })
    }

    @Test func twoProcessesCountIntoOneMonthAndANewMonthStartsAtZero() {
        let directory = TemporaryDirectory()
        let time = Locked(Self.lateNovember)
        let (a, b) = (ledger(directory, at: time), ledger(directory, at: time))
        for _ in 0..<3 { a.count(face: "cli", use: .read) }
        b.count(face: "board", use: .upkeep)
        b.count(face: "cli", use: .write)
        let november = a.thisMonth()
        #expect(november?.month == "2026-11")
        #expect(november?.total == 5)
        #expect(november?.requests(.read) == 3 && november?.requests(.upkeep) == 1 && november?.requests(.write) == 1)
        #expect(november?.counts.first { $0.face == "board" }?.requests == 1)
        // Three days on, December: its own count.
        time.withLock { $0 += 3 * 86_400 }
        #expect(b.thisMonth()?.month == "2026-12")
        #expect(b.thisMonth()?.total == 0)
        a.count(face: "mcp", use: .read)
        #expect(b.thisMonth()?.total == 1)
    }

    @Test func airtableSayingTheMonthIsSpentIsRemembered() {
        let directory = TemporaryDirectory()
        let time = Locked(Self.lateNovember)
        let ledger = ledger(directory, at: time)
        #expect(ledger.thisMonth()?.spentAt == nil)
        ledger.markSpent()
        #expect(ledger.thisMonth()?.spentAt == Self.lateNovember)
    }

    @Test func monthsAreUTCCalendarMonths() {
        #expect(MonthUsage.month(at: 1_796_083_199) == "2026-11", "2026-11-30 23:59:59 UTC")
        #expect(MonthUsage.month(at: 1_796_083_200) == "2026-12")
        let bounds = MonthUsage.bounds(at: Self.lateNovember)
        #expect(bounds.start == 1_793_491_200 && bounds.end == 1_796_083_200)
        #expect(MonthUsage.bounds(at: 1_798_761_600).end - MonthUsage.bounds(at: 1_798_761_600).start == 31 * 86_400)
    }

    @Test func theReportProjectsThePaceToTheMonthsEndAndSaysTheShare() {
        // 2,800 requests in 28.5 days of a 30-day month: about 98 a day, 2,947 by its end.
        let usage = MonthUsage(
            month: "2026-11",
            counts: [
                .init(face: "cli", use: .read, requests: 2_000), .init(face: "board", use: .upkeep, requests: 800),
            ])
        let report = UsageReport(
            usage: usage, at: Self.lateNovember, plan: MonthlyPlan.named["free"], backgroundShare: 0.5,
            keeper: "here", baseID: "appUSAGE")
        #expect(abs(report.pace - 2_800 / 28.5) < 1e-9)
        #expect(report.projection == 2_947)
        #expect(report.share?.spent == 2.8)
        #expect(report.isNearTheLimit)
        #expect(
            report.lines.contains {
                $0.hasPrefix("plan: the free plan's 1,000 calls a month: 280% spent, 295% projected")
            })
        #expect(report.lines.contains { $0.hasPrefix("warning: past 80%") })
        let json = report.object.serialized()
        #expect(json.contains(#""requests":2800"#) && json.contains(#""projection":2947"#), "\(json)")
        #expect(json.contains(#""byFace":{"board":{"upkeep":800},"cli":{"read":2000}}"#), "\(json)")
        let team = UsageReport(
            usage: usage, at: Self.lateNovember, plan: MonthlyPlan.named["team"], backgroundShare: 0.5, keeper: "here",
            baseID: "appUSAGE")
        #expect(!team.isNearTheLimit)
        #expect(team.lines.contains { $0.contains("2.8% spent, 2.9% projected") })
    }

    /// Every request that may have reached Airtable is counted, once per attempt, by face and use; one that could not
    /// connect is not; a background request is upkeep.
    @Test func theHelperCountsEachAttemptThatMayHaveArrived() async throws {
        let directory = TemporaryDirectory()
        let time = Locked(Self.lateNovember)
        let ledger = ledger(directory, at: time)
        let clock = TestClock()
        var environment = clock.environment()
        environment.face = "board"
        let host = StubTransport.host([
            .http(503, body: "{}"), .http(200, body: "{}"), .failure(.unreachable("connection refused")),
            .http(200, body: "{}"), .http(200, body: "{}"), .http(200, body: "{}"),
        ])
        let helper = NetworkHelper(
            transport: StubTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: UnlimitedPacer(), rules: ProjectAPIClient.rules, environment: environment, usage: ledger)
        let url = URL(string: "https://\(host.name)/")!
        _ = await helper.send(HTTPRequest(url: url), kind: .idempotent)  // a 503, then its retry: two
        _ = await helper.send(HTTPRequest(url: url), kind: .idempotent)  // refused, then its retry: one
        _ = await helper.send(HTTPRequest(url: url, method: "POST", body: Data("{}".utf8)), kind: .notIdempotent)
        await RequestPurpose.$current.withValue(.background) {
            _ = await helper.send(HTTPRequest(url: url), kind: .idempotent)
        }
        let month = try #require(ledger.thisMonth())
        #expect(
            month.counts == [
                .init(face: "board", use: .read, requests: 3), .init(face: "board", use: .upkeep, requests: 1),
                .init(face: "board", use: .write, requests: 1),
            ])
    }

    @Test func theMonthlyQuotaIsMarkedSpent() async {
        let directory = TemporaryDirectory()
        let ledger = ledger(directory, at: Locked(Self.lateNovember))
        let host = StubTransport.host([
            .http(
                429,
                body:
                    #"{"errors":[{"error":"PUBLIC_API_BILLING_LIMIT_EXCEEDED","message":"API billing plan limit exceeded."}]}"#
            )
        ])
        let helper = NetworkHelper(
            transport: StubTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: UnlimitedPacer(), rules: ProjectAPIClient.rules, environment: TestClock().environment(),
            usage: ledger)
        _ = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
        #expect(ledger.thisMonth()?.spentAt == Self.lateNovember)
        #expect(ledger.thisMonth()?.total == 1)
    }
}
