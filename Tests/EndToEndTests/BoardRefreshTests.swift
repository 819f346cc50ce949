import FakeAirtable
import Foundation
import XCTest

/// What another process changes reaches the open board at its next refresh, through the board's copy of the table.
extension BoardTests {
    /// The count a column's heading shows (`Done 3`).
    static func columnCount(_ column: String, on screen: String) -> Int? {
        guard let range = screen.range(of: column + " ") else { return nil }
        return Int(screen[range.upperBound...].prefix { $0.isNumber })
    }

    /// A project marked done elsewhere is done lately: it moves to Done at the board's next refresh (broken by a
    /// reader asked which projects turned complete before the refresh has read the change: it leaves the board for a
    /// refresh).
    func testAProjectMarkedDoneElsewhereMovesToDoneAtTheNextRefresh() throws {
        // The demo, answering 300 ms late as from afar: a refresh's reads take that long, and "done lately" asked beside
        // them (Airtable's answer remembered since the first read) answers before them.
        var (options, records) = FakeAirtable.demo(today: Self.today)
        options.latency = 0.3
        fake = FakeAirtable(options: options, records: records)
        try fake.start()
        let board = try BoardSession(tracker(), ["board", "--every", "5"])
        let first = board.wait(for: "projects · read ")
        let done = try XCTUnwrap(Self.columnCount("Done", on: first), first)
        XCTAssertTrue(first.contains("Coffee packaging"), first)
        let marked = try tracker().run(["done", "Coffee packaging"])
        XCTAssertEqual(marked.status, 0, marked.stderr)
        // Watched until it is under Done: it never leaves the board on the way (a refresh that read it complete but
        // did not count it done lately would drop it until the next).
        var gone: String?
        let deadline = Date().addingTimeInterval(20)
        while Self.columnCount("Done", on: board.screen) != done + 1 && Date() < deadline {
            let screen = board.screen
            if gone == nil, screen.contains("projects · read "), !screen.contains("Coffee packaging") { gone = screen }
            usleep(100_000)
        }
        let screen = board.screen
        XCTAssertEqual(Self.columnCount("Done", on: screen), done + 1, screen)
        XCTAssertTrue(screen.contains("Coffee packaging"), "under Done: \(screen)")
        XCTAssertNil(gone, "it left the board for a refresh: \(gone ?? "")")
        // Its copy answers the board from here on: a quiet refresh reads what changed (the webhook's payloads), never
        // the table (broken by a listing the copy does not hold every field of: each refresh reads the table whole).
        let settled = fake.recordLog.count
        let quietUntil = Date().addingTimeInterval(6)
        while Date() < quietUntil { usleep(200_000) }
        let quiet = fake.recordLog.dropFirst(settled)
        XCTAssertFalse(quiet.isEmpty, "a refresh went out")
        XCTAssertTrue(quiet.allSatisfy { $0.path.contains("/webhooks/") }, "\(quiet.map { "\($0.method) \($0.path)" })")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }
}

extension BoardTests {
    /// `demo -- board` ended by SIGTERM ends as the board does (143), after the demo's base is taken away (broken by a
    /// demo that turns a status it has no name for into 1).
    func testTheDemosBoardEndedBySIGTERMEndsTheDemoWith143() throws {
        let board = try BoardSession(tracker(), ["demo", "--", "board"])
        board.wait(for: "projects · read ")
        let demo = try XCTUnwrap(board.trackerPID)
        kill(demo, SIGTERM)
        XCTAssertEqual(board.status(), 143, board.screen)
        board.close()
    }
}

extension BoardTests {
    /// A board opening on a base reads every task once: its first screen counts them through the copy it keeps, not
    /// once from Airtable for the first screen and again when the copy makes itself (broken by counting the first
    /// screen's tasks through the cold session: every task page is read twice).
    func testABoardOpeningReadsEveryTaskOnce() throws {
        var options = FakeAirtable.Options()
        options.tasks = FakeAirtable.generatedTasks(count: 450, projects: 90)
        try startFake(records: FakeAirtable.generatedProjects(count: 90), options: options)
        let board = try BoardSession(tracker(), ["board", "--every", "5"], width: 120)
        board.wait(for: "deletions by webhook")
        // Two refreshes after the copy is made: each reads what changed, never the tasks whole.
        let until = Date().addingTimeInterval(11)
        while Date() < until { usleep(200_000) }
        let taskPages = fake.recordLog.filter {
            $0.method == "GET" && ($0.path.hasSuffix("/Tasks") || $0.path.hasSuffix("/" + FakeTasks.tableID))
        }
        XCTAssertEqual(taskPages.count, 5, "\(taskPages.map(\.path))")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }
}
