import Foundation
import XCTest

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam

/// A reader loading the team's copy while other processes' writes land in it: the scan spans many commands, so the
/// header's counts it read first may move under it. That is a copy still changing, read again, never a copy "short of
/// records" (which is not served, and sends the reader to Airtable for the whole base).
final class TeamCopyLoadTests: XCTestCase {
    private var redis: RedisServer!

    override func setUpWithError() throws { redis = try RedisServer() }
    override func tearDown() { redis = nil }

    private let owner = BudgetOwner(
        endpoint: URL(string: "http://127.0.0.1:1")!, baseID: "appTEAM", token: "pat", requestsPerSecond: 5)

    private func project(_ number: Int) -> Project {
        Project(id: String(format: "rec%014d", number), createdTime: "", name: "P\(number)")
    }

    private func store() throws -> TeamCopyStore {
        TeamCopyStore(
            keys: TeamCopyStore.Keys(owner: owner, table: "tblP", layout: "names"),
            connection: RedisConnection(
                address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5))
    }

    /// A reader's copy of the tables, which asks Airtable nothing here (the team's copy answers or nothing does).
    private func readerCopy() throws -> BaseCopy {
        let client = ProjectAPIClient(
            access: BaseAccess(token: "pat", baseID: "appTEAM", table: "tblP", endpoint: owner.endpoint),
            network: NetworkHelper(
                transport: try XCTUnwrap(CurlTransport(), "libcurl could not be loaded"), timeoutSeconds: 1,
                policy: RetryPolicy(budgetSeconds: 1), pacer: UnlimitedPacer(), rules: ProjectAPIClient.rules))
        return BaseCopy(client: client, tasks: nil, tableIDs: [.projects: "tblP"], memory: nil)
    }

    /// Another process's write of `projects` straight into the copy, as the write script leaves it: the records, the
    /// header's count and a new version.
    private static func landWrite(_ projects: [Project], in store: TeamCopyStore, order: Int) throws {
        var words = ["HSET", store.keys.records(.projects)]
        for (index, project) in projects.enumerated() {
            words += [project.id, "100.000 \(order + index) " + project.stored.serialized()]
        }
        _ = try store.connection.call([
            words, ["HINCRBY", store.keys.head, "count:projects", String(projects.count)],
            ["HINCRBY", store.keys.head, "version", "1"],
        ])
    }

    /// 2,000 projects written between the scan's first and second pages of 9,000: the reader reads again and is
    /// served all 11,000, in order, without a word of trouble (broken by a load that takes the moved count for a short
    /// copy: "it is short of records", and the copy is not served).
    func testWritesLandingWhileAReaderLoadsAreReadAgainNotCalledShort() async throws {
        var store = try store()
        let built = (0..<9_000).map(project)
        _ = try store.connection.call([["SET", store.keys.lease, "poller-1", "PX", "60000"]])
        _ = try store.rebuild(
            token: "poller-1", generation: "gen1", stamp: 100,
            tables: [(.projects, built.map { ($0.id, $0.stored.serialized()) })],
            header: [("layout", TeamCopyStore.Keys.hash("names"))])
        let landed = Locked(0)
        let writer = try self.store()
        let written = (9_000..<11_000).map(project)
        store.betweenPages = {
            guard
                landed.withLock({ count in
                    count += 1
                    return count == 1
                })
            else { return }
            try? Self.landWrite(written, in: writer, order: 9_001)
        }
        let warnings = Locked<[String]>([])
        let team = TeamCopy(
            store: store, settings: TeamCopy.Settings(every: 60, layout: "names", names: "names", poller: "reader"),
            say: { line in warnings.withLock { $0.append(line) } })
        let copy = try readerCopy()
        copy.team.withLock { $0 = team }
        let served = await team.snapshot(into: copy, maxAge: 600)
        XCTAssertGreaterThan(landed.withLock { $0 }, 1, "the scan ran in several pages")
        XCTAssertTrue(served, "not served: \(warnings.withLock { $0 })")
        XCTAssertEqual(warnings.withLock { $0 }, [])
        let projects = try await copy.projects(where: { _ in true })
        XCTAssertEqual(projects.count, 11_000)
        XCTAssertEqual(projects.map(\.id), (built + written).map(\.id), "the table's order was lost")
    }
}
