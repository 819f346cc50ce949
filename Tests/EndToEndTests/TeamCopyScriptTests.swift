import Foundation
import XCTest

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam

/// The scripts that change the team's copy, in a real Redis: fenced by the poller's lease, newer wins, a deletion
/// stays, and a copy short of records is never made to look whole.
final class TeamCopyScriptTests: XCTestCase {
    var redis: RedisServer!
    var store: TeamCopyStore!
    private let owner = BudgetOwner(
        endpoint: URL(string: "http://127.0.0.1:1")!, baseID: "appTEAM", token: "pat", requestsPerSecond: 5)

    override func setUpWithError() throws {
        redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        store = TeamCopyStore(
            keys: TeamCopyStore.Keys(owner: owner, table: "tblP", layout: "names"), connection: connection)
    }

    // XCTest keeps every test's instance to the end of the run: the server is stopped here, not left to deinit.
    override func tearDown() {
        (store, redis) = (nil, nil)
        super.tearDown()
    }

    func project(_ id: String, _ name: String) -> Project { Project(id: id, createdTime: "", name: name) }

    func changes(_ projects: [Project], deleting: [String] = []) -> TeamChanges {
        var changes = TeamChanges()
        changes.add(projects, to: .projects)
        if !deleting.isEmpty { changes.deleted[.projects] = deleting }
        return changes
    }

    /// The copy built whole by the lease's holder `token`, holding `projects`.
    func built(_ projects: [Project], token: String = "poller-1") throws -> String {
        _ = try redis.cli(["SET", store.keys.lease, token, "PX", "60000"])
        _ = try store.rebuild(
            token: token, generation: "gen1", stamp: 100,
            tables: [(.projects, projects.map { ($0.id, $0.stored.serialized()) })],
            header: [("layout", "x")])
        return "gen1"
    }

    /// Asserts the poller's next (empty) refresh is refused with `refusal`.
    func assertPollerTold(
        _ refusal: TeamRefusal, generation: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(
            try store.refresh(
                token: "poller-1", stamp: 600, generation: generation, version: 0, tables: [.projects], header: [],
                changes: changes([])), file: file, line: line
        ) { XCTAssertEqual($0 as? TeamRefusal, refusal, file: file, line: line) }
    }

    func name(_ id: String) throws -> String? {
        guard let value = try store.values(.projects, ids: [id]).first ?? nil else { return nil }
        return TeamCopyStore.record(value, as: Project.self)?.record.name ?? "junk"
    }

    /// A poller whose lease ran out (frozen, then woken) cannot write (broken by a refresh script that does not
    /// check the lease's token).
    func testARefreshWithoutTheLeaseWritesNothing() throws {
        let generation = try built([project("rec1", "One")])
        _ = try redis.cli(["SET", store.keys.lease, "poller-2", "PX", "60000"])
        XCTAssertThrowsError(
            try store.refresh(
                token: "poller-1", stamp: 200, generation: generation, version: 0, tables: [.projects], header: [],
                changes: changes([project("rec1", "Old news")]))
        ) { XCTAssertEqual($0 as? TeamRefusal, .lease) }
        XCTAssertEqual(try name("rec1"), "One")
        XCTAssertEqual(
            try store.refresh(
                token: "poller-2", stamp: 200, generation: generation, version: 0, tables: [.projects], header: [],
                changes: changes([project("rec1", "New")])), 2)
        XCTAssertEqual(try name("rec1"), "New")
    }

    /// Newer wins: a version read earlier never replaces one read later, and a record deleted stays deleted for a
    /// listing sent before the deletion (broken by a put that does not compare stamps, or a deletion with no stamp).
    func testNewerWinsAndADeletionStays() throws {
        let generation = try built([project("rec1", "One"), project("rec2", "Two")])
        XCTAssertTrue(try store.heard(stamp: 300, table: .projects, changes: changes([project("rec1", "Written")])))
        _ = try store.refresh(
            token: "poller-1", stamp: 250, generation: generation, version: 0, tables: [.projects], header: [],
            changes: changes([project("rec1", "Listed before the write")]))
        XCTAssertEqual(try name("rec1"), "Written")
        XCTAssertTrue(try store.heard(stamp: 400, table: .projects, changes: changes([], deleting: ["rec2"])))
        _ = try store.refresh(
            token: "poller-1", stamp: 350, generation: generation, version: 0, tables: [.projects], header: [],
            changes: changes([project("rec2", "Listed before the deletion")]))
        XCTAssertNil(try name("rec2"))
        XCTAssertNil(try store.sizes(every: 10).short)
        XCTAssertEqual(
            try redis.cli(["HGET", store.keys.head, "count:projects"]).trimmingCharacters(in: .whitespacesAndNewlines),
            "1")
    }

    /// A copy short of a record (a key or field gone behind tracker's back) stays short: a write's answer is not put in
    /// and the count is not set from what is left (broken by a count taken from HLEN).
    func testAShortCopyIsNeverMadeToLookWhole() throws {
        let generation = try built([project("rec1", "One"), project("rec2", "Two")])
        _ = try redis.cli(["HDEL", store.keys.records(.projects), "rec2"])
        XCTAssertNotNil(try store.sizes(every: 10).short)
        XCTAssertFalse(try store.heard(stamp: 500, table: .projects, changes: changes([project("rec3", "Three")])))
        XCTAssertNil(try name("rec3"))
        XCTAssertNotNil(try store.sizes(every: 10).short)
        // The poller is told to read it whole again.
        assertPollerTold(.broken, generation: generation)
    }

    /// A copy a reader found junk in is read whole again by the poller (broken by a refresh that ignores the mark).
    func testACopyDistrustedByAReaderIsRebuilt() throws {
        let generation = try built([project("rec1", "One")])
        _ = try redis.cli(["HSET", store.keys.head, "distrusted", generation])
        assertPollerTold(.broken, generation: generation)
    }

    /// A whole read is swapped in only when every staged record arrived, and only by the lease's holder.
    func testAWholeReadIsSwappedInWholeOrNotAtAll() throws {
        _ = try built([project("rec1", "One")])
        _ = try redis.cli(["SET", store.keys.lease, "poller-2", "PX", "60000"])
        XCTAssertThrowsError(
            try store.rebuild(
                token: "poller-1", generation: "gen2", stamp: 700,
                tables: [(.projects, [("rec9", project("rec9", "Nine").stored.serialized())])], header: []))
        XCTAssertEqual(try name("rec1"), "One")
        XCTAssertNil(try name("rec9"))
        XCTAssertEqual(try store.head().fields["generation"], "gen1")
    }

    /// What the copy stores reads back as the record it was, and anything else is junk, never a record.
    func testStoredRecordsReadBackAndJunkIsNotARecord() {
        let full = Project(
            id: "recF", createdTime: "2026-01-01T00:00:00.000Z", name: "Full", category: "Brand", isComplete: true,
            kickoff: CalendarDate("2026-11-01"), due: CalendarDate("2026-12-01"),
            lead: Collaborator(id: "usr1", name: "Ann", email: "ann@example.com"),
            team: [Collaborator(id: "usr2", name: "Bo", email: nil)], clients: ["recC"], notes: "n",
            otherFields: [FieldValue("Budget", .number(3))])
        XCTAssertEqual(Project(stored: full.stored), full)
        let task = ProjectTask(
            id: "recT", createdTime: "", name: "T", projects: ["recF"], isComplete: false, estimate: 2.5,
            assignee: nil, notes: nil, otherFields: [])
        XCTAssertEqual(ProjectTask(stored: task.stored), task)
        for junk in [
            "garbage", "1 2 {}", "1 2 {\"kind\":\"project\"}", "x 1 " + full.stored.serialized(),
            "1 x " + full.stored.serialized(),
        ] {
            XCTAssertNil(TeamCopyStore.record(junk, as: Project.self), junk)
        }
        XCTAssertNil(TeamCopyStore.record("1 1 " + task.stored.serialized(), as: Project.self))
        XCTAssertNotNil(TeamCopyStore.record("1.5 7 " + full.stored.serialized(), as: Project.self))
    }

    /// A table of many batches is read whole, each record once, while the next batches are read ahead; a taker that
    /// stops at the first batch (junk) ends the reading ahead instead of hanging on it.
    func testAScanReadsEveryRecordOnceAndStopsWhenTheTakerDoes() throws {
        let projects = (0..<9_000).map { project(String(format: "rec%014d", $0), "P\($0)") }
        _ = try built(projects)
        var seen: [String] = []
        var batches = 0
        try store.scan(.projects) { batch in
            batches += 1
            seen += batch.map(\.id)
        }
        XCTAssertGreaterThan(batches, 2, "read in several batches")
        XCTAssertEqual(seen.count, projects.count)
        XCTAssertEqual(Set(seen), Set(projects.map(\.id)))
        struct Stop: Error {}
        for _ in 0..<20 {
            XCTAssertThrowsError(try store.scan(.projects) { _ in throw Stop() }) { XCTAssertTrue($0 is Stop) }
        }
        // The connection is free again: the readers ahead stopped rather than holding it.
        XCTAssertEqual(try store.head().fields["generation"], "gen1")
    }
}
