import Foundation
import XCTest

@testable import FakeAirtable
@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam
import TrackerSystem

/// The poller's own face sees the pages of its first whole read as they come, whenever it asks: the board's first
/// screen in the process that reads the base for the team.
final class TeamCopyPagesTests: XCTestCase {
    private var redis: RedisServer!

    // Started and stopped off the test's own task: waiting for a process to end inside an async test spins.
    override func setUpWithError() throws { redis = try RedisServer() }
    override func tearDown() { redis = nil }

    /// A face that asks after its process began reading whole for the team (its done-lately question started the
    /// poller first) is given the pages still to come, not made to wait for the whole read (broken by a face that
    /// waits for the poller's read before it asks for pages: no page is shown, the board's first screen waits 24 s on
    /// a base of 1,016 projects).
    func testAFaceAskingAfterThePollerStartedSeesThePagesStillToCome() async throws {
        var options = FakeAirtable.Options()
        options.latency = 0.15
        let fake = FakeAirtable(options: options, records: FakeAirtable.generatedProjects(count: 600))
        try fake.start()
        defer { fake.stop() }
        let transport = try XCTUnwrap(CurlTransport(), "libcurl could not be loaded")
        let client = ProjectAPIClient(
            access: BaseAccess(
                token: options.token, baseID: options.baseID, table: options.table,
                endpoint: URL(string: fake.endpoint)!),
            network: NetworkHelper(
                transport: transport, timeoutSeconds: 10, policy: RetryPolicy(budgetSeconds: 5),
                pacer: UnlimitedPacer(), rules: ProjectAPIClient.rules))
        let copy = BaseCopy(client: client, tasks: nil, tableIDs: [.projects: options.tableID], memory: nil)
        let owner = BudgetOwner(
            endpoint: URL(string: fake.endpoint)!, baseID: options.baseID, token: options.token, requestsPerSecond: 5)
        let store = TeamCopyStore(
            keys: TeamCopyStore.Keys(owner: owner, table: options.tableID, layout: "names"),
            connection: RedisConnection(
                address: try RedisAddress.parse("redis://127.0.0.1:\(redis.port)").get(), answerTimeout: 5))
        let team = TeamCopy(
            store: store, settings: TeamCopy.Settings(every: 60, layout: "names", names: "names", poller: "test"),
            say: { _ in })
        copy.team.withLock { $0 = team }
        defer { Task { await team.stop() } }

        // The lease taken, then the first page of the whole read on its way: the face asks only now.
        await team.awaitLoaded(copy)
        let polling = await team.polling
        XCTAssertTrue(polling, "this process polls")
        let deadline = Date().addingTimeInterval(5)
        while fake.recordLog.isEmpty && Date() < deadline { usleep(5_000) }
        let shown = Locked<[Int]>([])
        let projects = try await copy.projects(where: { _ in true }) { page in shown.withLock { $0.append(page.count) }
        }
        XCTAssertEqual(projects.count, 600)
        let pages = shown.withLock { $0 }
        XCTAssertFalse(pages.isEmpty, "no page was shown before the whole read was done")
        let listings = fake.recordLog.filter { $0.method == "GET" && $0.path.hasSuffix("/" + options.table) }
        XCTAssertEqual(listings.count, 6, "one whole read of 6 pages, and no more")
        // Once served, the face is shown nothing more.
        await team.stop()
        XCTAssertNil(team.pages.withLock { $0 })
    }
}
