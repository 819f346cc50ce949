import FakeAirtable
import Foundation
import XCTest

/// The team's copy with nobody looking: the poller slows, doubling its interval round by round, and the first call
/// after brings the copy up to date before it answers. An idle team otherwise spends the workspace's month polling
/// (360 requests an hour at 10 s).
final class TeamCopyIdleTests: TeamCopyTestCase {
    func testAnIdleTeamPollsLessAndTheFirstCallAfterSeesTheChange() throws {
        try startBase()
        let poller = try server(try teamMachine(every: 1))
        XCTAssertEqual(taskTotal(poller), openTasks)
        let reader = try server(try teamMachine(every: 1))
        XCTAssertEqual(taskTotal(reader), openTasks)
        // Twenty seconds with no call: at its own interval the poller would ask Airtable twenty times.
        let before = fake.log.count
        Thread.sleep(forTimeInterval: 20)
        let idle = fake.log.count - before
        XCTAssertLessThanOrEqual(idle, 7, "requests in 20 idle seconds: \(fake.log.suffix(idle).map(\.path))")
        XCTAssertGreaterThanOrEqual(idle, 2, "it still checks, less often")
        // A change made elsewhere, then the reader's first call: answered with the change (the look wakes the poller,
        // and the reader waits for its refresh), not with what the copy held while nobody looked.
        let renamed = try elsewhere().run(["update", "rec00000000000007", "--name", "Seen on the first call"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        let asked = Date()
        XCTAssertEqual(name("rec00000000000007", on: reader), "Seen on the first call", reader.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(asked), 4, "within teamCopyEvery + 2 s and a second's slack")
        // Looked at again, the poller is back at its own interval.
        let looked = fake.log.count
        for _ in 0..<6 {
            _ = taskTotal(reader)
            Thread.sleep(forTimeInterval: 1)
        }
        XCTAssertGreaterThanOrEqual(fake.log.count - looked, 4, "about one a second while someone looks")
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// Once Airtable says the workspace's month is spent, the poller tries once in 10 minutes, not every round: at its
    /// own interval of a second it would ask ten times in the ten seconds below.
    func testASpentMonthStopsThePollerAsking() throws {
        try startBase()
        let poller = try server(try teamMachine(every: 1))
        XCTAssertEqual(taskTotal(poller), openTasks)
        fake.injectOnEveryRequest(
            .status(429, type: "PUBLIC_API_BILLING_LIMIT_EXCEEDED", message: "API billing plan limit exceeded."))
        Thread.sleep(forTimeInterval: 2)
        let before = fake.log.count
        Thread.sleep(forTimeInterval: 10)
        XCTAssertLessThanOrEqual(fake.log.count - before, 1, "\(fake.log.suffix(fake.log.count - before).map(\.path))")
        fake.injectOnEveryRequest(nil)
        XCTAssertEqual(poller.finish().status, 0, poller.stderr)
    }
}
