import Foundation
import XCTest

@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerOperations

/// The journal in a real redis-server: every machine sees every entry, a later state replaces an entry, 30 days and a
/// bound are kept by the one script, and a Redis that cannot keep an entry stops the write.
final class RedisJournalTests: XCTestCase {
    private var redis: RedisServer?
    let now = 1_800_000_000.0

    override func tearDown() {
        redis?.stop()
        super.tearDown()
    }

    /// A machine's journal on its own connection to `server`.
    private func journal(_ server: RedisServer, bound: Int = JournalBounds.entries) throws -> RedisJournal {
        let connection = RedisConnection(address: try RedisAddress.parse(server.url()).get(), answerTimeout: 2)
        let now = self.now
        return RedisJournal(
            connection: connection, baseID: "appJOURNAL0000001", redis: "test", now: { now }, bound: bound)
    }

    private func update(_ command: String, at: Double, user: String = "usrALICE000000001") -> JournalEntry {
        JournalEntry(
            at: at, user: user, face: "cli", command: command, table: "Design projects",
            changes: [
                .init(
                    kind: .update, id: "rec00000000000001", before: [("Status", .string("Open"))],
                    after: [("Status", .string("Done"))])
            ])
    }

    func testEveryMachineSeesEveryEntryNewestFirstEachInItsLastState() throws {
        let server = try RedisServer()
        redis = server
        let (one, two) = (try journal(server), try journal(server))
        var first = update("first", at: now - 60)
        try one.keep(first)
        try two.keep(update("second", at: now - 30, user: "usrBOB00000000001"))
        first.state = .completed
        try one.keep(first)
        XCTAssertEqual(try two.entries(limit: 10, since: nil).map(\.command), ["second", "first"])
        XCTAssertEqual(try two.entry(first.id), first)
        XCTAssertEqual(try two.entries(limit: 1, since: nil).map(\.command), ["second"])
        XCTAssertEqual(try one.entries(limit: 10, since: now - 45).map(\.command), ["second"])
    }

    /// Broken by a script that keeps everything: the old and the over-bound entries stay listed and stored.
    func testEntriesPastThirtyDaysOrBeyondTheBoundAreDropped() throws {
        let server = try RedisServer()
        redis = server
        let journal = try journal(server, bound: 5)
        try journal.keep(update("ancient", at: now - 40 * 86_400))
        for index in 0..<8 { try journal.keep(update("n\(index)", at: now - 100 + Double(index))) }
        XCTAssertEqual(try journal.entries(limit: 10, since: nil).map(\.command), ["n7", "n6", "n5", "n4", "n3"])
        XCTAssertEqual(try server.cli(["HLEN", "tracker:{appJOURNAL0000001}:journal:entries"]), "5")
        XCTAssertEqual(try server.cli(["ZCARD", "tracker:{appJOURNAL0000001}:journal:order"]), "5")
    }

    /// A Redis gone: the entry cannot be kept, so the write is not sent (exit 75).
    func testARedisThatCannotKeepTheEntryStopsTheWrite() throws {
        let server = try RedisServer()
        let journal = try journal(server)
        server.stop()
        XCTAssertThrowsError(try journal.keep(update("lost", at: now))) { error in
            let error = error as? AppError
            XCTAssertEqual(error?.exitCode, .temporaryFailure)
            XCTAssertTrue(
                error?.message.hasPrefix("the journal could not keep this write") == true,
                "\(String(describing: error))")
        }
    }
}
