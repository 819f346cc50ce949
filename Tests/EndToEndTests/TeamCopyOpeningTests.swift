import FakeAirtable
import Foundation
import XCTest

/// Machines opening together: what one of them reads for the team (the schema, the first page, done lately) the others
/// take from Redis instead of asking Airtable again.
final class TeamCopyOpeningTests: TeamCopyTestCase {
    /// The requests that read the base's schema.
    private var schemaReads: Int { fake.log.filter { $0.path.hasPrefix("/v0/meta/bases/") }.count }

    /// The requests that ask which projects were completed lately (the board's "done lately").
    private var doneLatelyAsks: Int { fake.recordLog.filter { $0.query.contains("LAST_MODIFIED_TIME") }.count }

    /// Three boards on three machines opened together: each draws its first screen from the poller's first page, long
    /// before the whole read (broken by readers that wait for the copy: 37 pages at 5 a second); the schema and done
    /// lately are asked once between them (broken by readers that read them themselves), the tables read once. Only the
    /// poller loads libcurl, as the loader's own log says: the two following send nothing (broken by Redis reached
    /// through libcurl's connect-only mode, or by boards loading the transport before they know they poll).
    func testBoardsOpenedTogetherDrawTheFirstPageAndAskOnceForEverything() throws {
        try startBase(projects: 600)
        let started = Date()
        let machines = try (0..<3).map { _ in try teamMachine(every: 2) }
        let boards = try machines.map { machine in
            try BoardSession(
                machine, ["board", "--every", "300"], width: 160, height: 40,
                extra: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": machine.runtimeDirectory + "/loaded"])
        }
        defer { for board in boards { board.close() } }
        for board in boards {
            let first = board.wait(for: "Project 0", timeout: 10)
            XCTAssertTrue(first.contains("Project 0"), first)
        }
        // The whole read is 37 pages at 5 a second (7.4 s): every first screen came from the first page.
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "a first screen waited for the whole read")
        for board in boards {
            let whole = board.wait(for: "the team's copy", timeout: 30)
            XCTAssertTrue(whole.contains("the team's copy"), whole)
        }
        XCTAssertEqual(schemaReads, 1, "the schema is read by one machine for all three")
        XCTAssertEqual(wholeTaskPages(), 30, "one whole read of the tasks")
        XCTAssertEqual(doneLatelyAsks, 1, "done lately is asked by the poller and read by the others from its header")
        XCTAssertFalse(fake.log.contains { $0.status == 429 })
        for board in boards {
            board.press("q")
            XCTAssertEqual(board.status(), 0)
        }
        #if os(Linux)
            let loadingCurl = try machines.filter { machine in
                let logs = try FileManager.default.contentsOfDirectory(atPath: machine.runtimeDirectory)
                    .filter { $0.hasPrefix("loaded.") }
                XCTAssertFalse(logs.isEmpty, "the loader kept no log")
                return try logs.contains {
                    try String(contentsOfFile: machine.runtimeDirectory + "/" + $0, encoding: .utf8).contains("libcurl")
                }
            }
            XCTAssertEqual(loadingCurl.count, 1, "boards that loaded libcurl (the poller alone needs it)")
        #endif
    }

    /// A shared schema that is junk, or over an hour old, is not used: the machine reads the schema from Airtable and
    /// shares that instead (broken by a machine that takes the shared one without checking it: it fails or uses an
    /// old schema).
    func testASharedSchemaThatIsJunkOrOldIsReadAgain() throws {
        try startBase(projects: 20)
        let first = try teamMachine().run(["list", "--json"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(schemaReads, 1)
        guard let key = try redis.keys().map(\.key).first(where: { $0.contains(":schema:") && !$0.hasSuffix("ing") })
        else { return XCTFail("the schema was not shared: \(try redis.keys())") }
        let shared = try redis.cli(["GET", key])
        XCTAssertTrue(shared.contains("\"tables\""), shared)

        // Another machine takes it as it is: no schema read of its own.
        let second = try teamMachine().run(["list", "--json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(schemaReads, 1, "a machine with no schema of its own took the team's")

        let now = Int(Date().timeIntervalSince1970)
        for (junk, why) in [
            ("\(now) not a schema", "junk"), ("\(now) {\"tables\": 5}", "not a schema"),
            ("\(now - 7200) {\"tables\": []}", "old"),
        ] {
            _ = try redis.cli(["SET", key, junk])
            let before = schemaReads
            let machine = try teamMachine().run(["list", "--json"])
            XCTAssertEqual(machine.status, 0, "\(why): \(machine.stderr)")
            XCTAssertEqual(machine.stdout, first.stdout, why)
            XCTAssertEqual(schemaReads, before + 1, "a shared schema that is \(why) is read again from Airtable")
            XCTAssertTrue(try redis.cli(["GET", key]).contains("\"fields\""), "the schema read is shared again")
        }
    }
}
