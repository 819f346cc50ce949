import Foundation
import XCTest

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam

/// The scripts keep the copy honest in a real Redis: its age is the poller's alone, a Redis gone back in time is seen,
/// a tie never brings a deleted record back, nothing grows without bound, and no entry outgrows what a reader reads.
extension TeamCopyScriptTests {
    private func field(_ key: String, _ field: String) throws -> String {
        try redis.cli(["HGET", key, field])
    }

    /// A write's answer changes records, never how fresh the copy looks nor how long its keys live (broken by a heard
    /// script that sets `applied` or renews the keys: a day-old copy nobody polls passed `--max-age 300` after an add).
    func testAWriteNeverMakesTheCopyLookFreshOrKeepsItAlive() throws {
        _ = try built([project("rec1", "One")])
        let applied = try field(store.keys.head, "applied")
        XCTAssertFalse(applied.isEmpty)
        _ = try redis.cli(["PEXPIRE", store.keys.head, "5000"])
        usleep(20_000)
        XCTAssertTrue(try store.heard(stamp: 300, table: .projects, changes: changes([project("rec1", "Written")])))
        XCTAssertEqual(try name("rec1"), "Written")
        XCTAssertEqual(try field(store.keys.head, "applied"), applied)
        XCTAssertLessThanOrEqual(Int(try redis.cli(["PTTL", store.keys.head])) ?? .max, 5000)
    }

    /// A copy at a version below the last one the poller saw went back in time (a restart from an older dump): the
    /// poller's refresh is refused and it puts its copy in again (broken by a refresh that does not compare versions).
    func testARedisThatWentBackInTimeIsRefused() throws {
        let generation = try built([project("rec1", "One")])
        XCTAssertThrowsError(
            try store.refresh(
                token: "poller-1", stamp: 600, generation: generation, version: 7, tables: [.projects], header: [],
                changes: changes([project("rec1", "After")]))
        ) { XCTAssertEqual($0 as? TeamRefusal, .behind) }
        XCTAssertEqual(try name("rec1"), "One")
        XCTAssertNoThrow(
            try store.refresh(
                token: "poller-1", stamp: 600, generation: generation, version: 1, tables: [.projects], header: [],
                changes: changes([project("rec1", "After")])))
    }

    /// A deletion and a listing stamped the same millisecond: the deletion wins (broken by `>` where `>=` is meant).
    func testATieNeverBringsADeletedRecordBack() throws {
        let generation = try built([project("rec1", "One"), project("rec2", "Two")])
        XCTAssertTrue(try store.heard(stamp: 400, table: .projects, changes: changes([], deleting: ["rec2"])))
        _ = try store.refresh(
            token: "poller-1", stamp: 400, generation: generation, version: 0, tables: [.projects], header: [],
            changes: changes([project("rec2", "Listed as it was deleted")]))
        XCTAssertNil(try name("rec2"))
    }

    /// "Done lately" answers of days the poller no longer gives leave the header, and deletion stamps over an hour
    /// old go once there are many (broken by a header that only ever adds, or a gone hash cleared only by a rebuild).
    func testTheHeaderAndTheDeletionStampsDoNotGrowWithoutBound() throws {
        let generation = try built([project("rec1", "One")])
        _ = try store.refresh(
            token: "poller-1", stamp: 5000, generation: generation, version: 0, tables: [.projects],
            header: [("done:2026-11-27", "1 recA")], changes: changes([]))
        _ = try store.refresh(
            token: "poller-1", stamp: 5001, generation: generation, version: 0, tables: [.projects],
            header: [("done:2026-11-28", "2 recB")], changes: changes([]))
        XCTAssertEqual(try field(store.keys.head, "done:2026-11-27"), "")
        XCTAssertEqual(try field(store.keys.head, "done:2026-11-28"), "2 recB")
        var words = ["HSET", store.keys.gone]
        for index in 0..<1200 { words += ["recOld\(index)", "100.000"] }
        _ = try redis.cli(words + ["recNew", "9000.000"])
        _ = try store.refresh(
            token: "poller-1", stamp: 9000, generation: generation, version: 0, tables: [.projects], header: [],
            changes: changes([]))
        XCTAssertEqual(try redis.cli(["HLEN", store.keys.gone]), "1")
    }

    /// A refresh that changes more ids than a reader reads in one value says "reload" instead of listing them, and
    /// readers load the copy from Redis (broken by an entry that lists 20,000 ids: over the bound, readers spun).
    func testANewsEntryNeverOutgrowsWhatAReaderReads() throws {
        let generation = try built([project("rec1", "One")])
        let many = (0..<20_000).map { project(String(format: "rec%014d", $0), "Project \($0)") }
        _ = try store.refresh(
            token: "poller-1", stamp: 700, generation: generation, version: 0, tables: [.projects], header: [],
            changes: changes(many))
        let news = try store.news(after: "0", blocking: nil)
        XCTAssertEqual(news.last?.fields["reload"], "1")
        XCTAssertTrue(news.last?.isWhole == true)
        XCTAssertNil(news.last?.fields["c:projects"]?.count, "no list of ids")
        XCTAssertEqual(try redis.cli(["HLEN", store.keys.records(.projects)]), "20001")
    }

    /// A news key that is not a stream (junk) refuses the refresh, and the whole copy made again replaces it (broken by
    /// a script that fails at XADD after writing records, or a rebuild that keeps the junk).
    func testANewsKeyOfAnotherTypeIsMadeAgain() throws {
        let generation = try built([project("rec1", "One")])
        _ = try redis.cli(["DEL", store.keys.news])
        _ = try redis.cli(["SET", store.keys.news, "junk"])
        assertPollerTold(.broken, generation: generation)
        XCTAssertEqual(try name("rec1"), "One")
        _ = try built([project("rec1", "Again")])
        XCTAssertEqual(try redis.cli(["TYPE", store.keys.news]), "stream")
        XCTAssertEqual(try name("rec1"), "Again")
    }
}
