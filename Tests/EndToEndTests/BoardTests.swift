import FakeAirtable
import Foundation
import XCTest

/// `tracker board` driven on a terminal as a person drives it: keys in, the screen read back, the fake's log checked.
final class BoardTests: FakeAirtableTestCase {
    static var today: String { day(from: 0) }

    /// The day `days` from today, as the board reads dates: local time.
    static func day(from days: Int) -> String { localDay(days) }

    /// The demo with "Premier utility bike" due tomorrow, so that on every day it comes before "Coffee packaging"
    /// (due in three days) in This week, as it does on Saturdays in the demo as it is: a test that acts on the
    /// column's first card instead of the card it names fails on any day, not one day in seven.
    func startDemoFakeWithTheBikeFirst() throws {
        try startDemoFake { records in
            for index in records.indices {
                guard var fields = records[index]["fields"] as? [String: Any],
                    fields["Name"] as? String == "Premier utility bike"
                else { continue }
                fields["Due date"] = BoardTests.day(from: 1)
                records[index]["fields"] = fields
            }
        }
    }

    /// The demo's base: the template's projects with their dates moved near `today`, so every column has cards. The
    /// demo moves them by whole weeks, so which card comes first in a column depends on the weekday: tests find the
    /// card they act on by its name, never by its place.
    func startDemoFake(lockout: Double = 30, _ adjust: (inout [[String: Any]]) -> Void = { _ in }) throws {
        var (options, records) = FakeAirtable.demo(today: Self.today)
        options.lockoutSeconds = lockout
        adjust(&records)
        fake = FakeAirtable(options: options, records: records)
        try fake.start()
        options = fake.options
    }

    /// Writes of records: the base's webhook, made once so the board sees deletions, is not one.
    var writes: [FakeAirtable.LogEntry] {
        fake.recordLog.filter { $0.method != "GET" && !$0.path.contains("/webhooks") }
    }

    /// Selects the one card whose name has `name`: a search, left with Enter, selects the card it leaves.
    func select(_ name: String, on board: BoardSession) {
        board.press("/")
        board.press(name, literal: true)
        board.press("Enter")
        board.wait(for: "/\(name)")
    }

    func testOffATerminalIs64AndDrawsNothing() throws {
        try startDemoFake()
        let result = try tracker().run(["board"])
        assertFailure(result, status: 64, "board needs a terminal; try tracker list or tracker status")
        XCTAssertTrue(fake.log.isEmpty, "nothing read")
    }

    func testTheColumnsAndCardsAt80x24And200x50() throws {
        try startDemoFake()
        for (width, height) in [(80, 24), (200, 50)] {
            let board = try BoardSession(tracker(), width: width, height: height)
            let screen = board.wait(for: "projects · read ")
            for title in ["Overdue", "This week", "Later", "Done"] { XCTAssertTrue(screen.contains(title), screen) }
            XCTAssertTrue(screen.contains("Coffee packaging"), screen)
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertLessThanOrEqual(lines.count, height)
            for line in lines { XCTAssertLessThanOrEqual(BoardSession.columns(line), width, String(line)) }
            board.press("q")
            XCTAssertEqual(board.status(), 0)
            board.close()
        }
        XCTAssertTrue(writes.isEmpty)
    }

    func testACardOpensAndSpaceTicksOneTaskOnce() throws {
        try startDemoFake()
        let board = try BoardSession(tracker())
        board.wait(for: "projects · read ")
        board.press("/")
        board.press("Coffee", literal: true)
        board.press("Enter")
        board.wait(for: "/Coffee")
        // Coffee packaging is due within the week: the second column.
        board.press("l")
        board.press("Enter")
        var screen = board.wait(for: "Tasks  ")
        XCTAssertTrue(screen.contains("Dieline and proofs"), screen)
        board.press("Space")
        screen = board.wait(for: "Ticked")
        XCTAssertTrue(screen.contains("Ticked \"Dieline and proofs\" done."), screen)
        XCTAssertEqual(writes.count, 1, "one key press, one write: \(writes.map(\.path))")
        XCTAssertEqual(writes.first?.method, "PATCH")
        XCTAssertTrue(writes.first?.path.contains("Tasks") == true || writes.first?.path.contains("tbl") == true)
        board.press("Escape")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }

    /// The card is found by its name: with another card above it in its column (as on Saturdays in the demo), a
    /// test that moved to the column's first card marked the wrong project.
    func testDoneAsksFirstAndWritesOncePerKeyPress() throws {
        try startDemoFakeWithTheBikeFirst()
        let board = try BoardSession(tracker())
        let first = board.wait(for: "projects · read ")
        XCTAssertTrue(first.contains("This week 2") && first.contains("Premier utility b"), first)
        select("Coffee", on: board)
        board.press("d")
        XCTAssertTrue(board.wait(for: "[y/N]").contains("done? [y/N]"))
        board.press("n")
        board.wait(for: "Nothing changed.")
        XCTAssertTrue(writes.isEmpty, "no is no")
        board.press("d")
        board.wait(for: "[y/N]")
        board.press("y")
        let screen = board.wait(for: "Marked")
        XCTAssertTrue(screen.contains("Marked \"Coffee packaging\" done."), screen)
        XCTAssertEqual(writes.count, 1)
        let record = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Coffee packaging" }
        XCTAssertEqual((record?["fields"] as? [String: Any])?["Complete"] as? Bool, true)
        board.press("C-c")
        XCTAssertEqual(board.status(), 130)
    }

    /// `u` undoes the last write to the selected card's project, from any face: here the board's own `d`, then the
    /// command line's history says so (the board journals as `board`).
    func testUUndoesTheLastWriteToTheCardAfterAsking() throws {
        try startDemoFakeWithTheBikeFirst()
        let process = tracker()
        let board = try BoardSession(process)
        board.wait(for: "projects · read ")
        select("Coffee", on: board)
        board.press("d")
        board.wait(for: "[y/N]")
        board.press("y")
        board.wait(for: "Marked")
        func complete() -> Bool? {
            let record = fake.records.first {
                ($0["fields"] as? [String: Any])?["Name"] as? String == "Coffee packaging"
            }
            return (record?["fields"] as? [String: Any])?["Complete"] as? Bool
        }
        XCTAssertEqual(complete(), true)
        // Done, the card moved to the Done column: found again there (the search cleared first).
        board.press("/")
        board.press("Escape")
        select("Coffee", on: board)
        board.press("u")
        XCTAssertTrue(board.wait(for: "[y/N]").contains("Undo the last write to \"Coffee packaging\"? [y/N]"))
        board.press("n")
        board.wait(for: "Nothing changed.")
        XCTAssertEqual(complete(), true, "no is no")
        board.press("u")
        board.wait(for: "[y/N]")
        board.press("y")
        let screen = board.wait(for: "Undid")
        XCTAssertTrue(screen.contains("Undid done"), screen)
        XCTAssertNil(complete(), "open again")
        board.press("C-c")
        XCTAssertEqual(board.status(), 130)
        let history = try process.run(["history"])
        let faces = history.stdout.split(separator: "\n").map { $0.components(separatedBy: "\t")[3] }
        XCTAssertEqual(faces, ["board", "board"], history.stdout)
    }

    /// An assistant's write waiting for approval: the header says so, and `a` lists it with its diff.
    func testTheHeaderSaysWhenApprovalsWaitAndAListsThem() throws {
        try startDemoFake()
        let process = try configuredTracker(#""assistants": {"approve": ["update"]}"#)
        let assistant = try MCPSession(process)
        _ = assistant.call("initialize", MCPTests.initialize)
        assistant.notify("notifications/initialized")
        let id = try XCTUnwrap(
            fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Coffee packaging" }?["id"]
                as? String)
        let waiting = assistant.tool("update_project", ["project": id, "notes": "an assistant's idea"]).structured
        let approval = try XCTUnwrap(waiting["approval"] as? String, "\(waiting)")
        let board = try BoardSession(process)
        board.wait(for: "1 approval waits (a)")
        board.press("a")
        let screen = board.wait(for: "waiting for your approval")
        XCTAssertTrue(screen.contains(approval) && screen.contains("update_project"), screen)
        XCTAssertTrue(screen.contains("Notes") && screen.contains("tracker approve ID"), screen)
        board.press("x")
        board.wait(for: "projects · read ")
        board.press("C-c")
        XCTAssertEqual(board.status(), 130)
    }

    func testACommentIsSentOnEnterAndDroppedOnEscape() throws {
        try startDemoFake()
        let board = try BoardSession(tracker())
        board.wait(for: "projects · read ")
        board.press("c")
        board.press("never sent", literal: true)
        board.press("Escape")
        board.wait(for: "Comment dropped.")
        board.press("c")
        board.press("Proofs approved", literal: true)
        board.press("Enter")
        XCTAssertTrue(board.wait(for: "Commented").contains("Commented on"))
        XCTAssertEqual(writes.count, 1)
        XCTAssertTrue(writes.first?.body.contains("Proofs approved") == true)
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }

    func testAWriteAirtableRefusesIsUndoneWithOneLine() throws {
        try startDemoFakeWithTheBikeFirst()
        let board = try BoardSession(tracker())
        board.wait(for: "projects · read ")
        select("Coffee", on: board)
        XCTAssertTrue(board.screen.contains("This week 1"), "only the card searched for: \(board.screen)")
        fake.inject(
            .status(
                422, type: "INVALID_VALUE_FOR_COLUMN", message: "Field \"Complete\" cannot accept the provided value"),
            onRequest: 1)
        board.press("d")
        board.wait(for: "[y/N]")
        board.press("y")
        let screen = board.wait(for: "Could not")
        XCTAssertTrue(screen.contains("Could not mark \"Coffee packaging\" done"), screen)
        XCTAssertTrue(screen.contains("This week 1"), "put back: \(screen)")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }

    func testTheTerminalIsGivenBackOnQCtrlCAndSIGTERM() throws {
        try startDemoFake()
        for way in ["q", "C-c", "SIGTERM"] {
            let board = try BoardSession(tracker())
            board.wait(for: "projects · read ")
            if way == "SIGTERM" {
                let pid = try XCTUnwrap(board.trackerPID)
                kill(pid, SIGTERM)
            } else {
                board.press(way)
            }
            let status = board.status()
            XCTAssertEqual(status, way == "q" ? 0 : way == "C-c" ? 130 : 143, way)
            let bytes = board.bytes
            let entered = try XCTUnwrap(bytes.range(of: "\u{1B}[?1049h"), way)
            let left = try XCTUnwrap(bytes.range(of: "\u{1B}[?1049l", options: .backwards), "\(way): main screen")
            XCTAssertLessThan(entered.lowerBound, left.lowerBound)
            XCTAssertTrue(bytes[entered.upperBound...].contains("\u{1B}[?25h"), "\(way): cursor shown")
            // Cooked mode again: the shell after it echoes what is typed.
            board.press("echo typed-after", literal: true)
            board.press("Enter")
            board.close()
        }
    }

    /// `--verbose` with stderr redirected: every request the board sends is kept in the file (on the terminal it would
    /// tear the screen, so there only the last line shows, at the bottom).
    func testVerboseRequestsReachARedirectedStderr() throws {
        try startDemoFake()
        let process = tracker()
        let file = process.runtimeDirectory + "/verbose.txt"
        let board = try BoardSession(process, ["board", "--verbose"], standardErrorTo: file)
        board.wait(for: "projects · read ")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        XCTAssertTrue(text.contains("tracker: GET /v0/\(fake.options.baseID)/"), text)
        XCTAssertFalse(text.contains(fake.options.token), "the token")
        board.close()
    }

    /// Ctrl-Z stops the board (and `demo` with it) until `fg`, which brings the board back reading keys: nothing of
    /// tracker's runs on while the shell holds the terminal.
    func testCtrlZStopsTheBoardUntilFgAlsoUnderDemo() throws {
        try startDemoFake()
        for arguments in [["board"], ["demo", "--", "board"]] {
            let board = try BoardSession(tracker(), arguments, jobControl: true)
            board.wait(for: "projects · read ")
            for _ in 0..<2 {
                board.press("C-z")
                XCTAssertTrue(board.wait(for: "Stopped").contains("Stopped"), "\(arguments): \(board.screen)")
                board.press("fg", literal: true)
                board.press("Enter")
                XCTAssertTrue(board.wait(for: "projects · read ").contains("projects · read "), "\(arguments)")
            }
            board.press("q")
            let deadline = Date().addingTimeInterval(10)
            while board.screen.contains("projects · read ") && Date() < deadline { usleep(50_000) }
            board.noteStatus()
            XCTAssertEqual(board.status(), 0, "\(arguments): \(board.screen)")
            board.close()
        }
    }

    func testHostileNamesNeverBreakTheLayoutOrReachTheTerminalRaw() throws {
        try startDemoFake { records in
            let names = [
                "Evil \u{1B}]0;pwned\u{07} title \u{1B}[2J", "Bidi \u{202E}txt.exe",
                String(repeating: "Long ", count: 60),
                "設計プロジェクト 🎨🎨 wide", "Tab\tand\nnewline",
            ]
            for (index, name) in names.enumerated() {
                var fields = records[index]["fields"] as? [String: Any] ?? [:]
                fields["Name"] = name
                records[index]["fields"] = fields
            }
        }
        let board = try BoardSession(tracker())
        let screen = board.wait(for: "projects · read ")
        for line in screen.split(separator: "\n", omittingEmptySubsequences: false) {
            XCTAssertLessThanOrEqual(BoardSession.columns(line), 80, String(line))
        }
        board.press("q")
        XCTAssertEqual(board.status(), 0)
        let bytes = board.bytes
        XCTAssertFalse(bytes.contains("\u{1B}]0;"), "no title set")
        XCTAssertFalse(bytes.contains("\u{202E}"), "no bidi override")
        XCTAssertFalse(bytes.contains("pwned\u{07}"))
    }

    func testATooSmallWindowSaysSo() throws {
        try startDemoFake()
        let board = try BoardSession(tracker(), width: 50, height: 12)
        XCTAssertTrue(board.wait(for: "too small").contains("too small"))
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }

    func testASCIIInALocaleWithoutUTF8() throws {
        try startDemoFake()
        let board = try BoardSession(tracker(), locale: "C")
        let screen = board.wait(for: "projects · read ")
        XCTAssertTrue(screen.contains("|"), screen)
        XCTAssertFalse(board.bytes.contains("│"))
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }

    func testAFailedOrRateLimitedRefreshLeavesTheBoardUsableWithOneLine() throws {
        // Airtable locks a base out for 30 s; here for 2, so the test sees the board recover.
        try startDemoFake(lockout: 2)
        let process = try configuredTracker(#""retryBudgetSeconds": 1"#)
        let board = try BoardSession(process, ["board", "--every", "5"])
        board.wait(for: "projects · read ")
        fake.injectOnEveryRequest(.status(503, type: nil))
        var screen = board.wait(for: "Could not read the table", timeout: 20)
        XCTAssertTrue(screen.contains("Could not read the table"), screen)
        XCTAssertTrue(screen.contains("Coffee packaging"), "the cards stay: \(screen)")
        // Still usable: keys move and search.
        board.press("/")
        board.press("Coffee", literal: true)
        board.press("Enter")
        XCTAssertTrue(board.wait(for: "/Coffee").contains("/Coffee"))
        board.press("Escape")
        fake.injectOnEveryRequest(.rateLimited(retryAfter: "1"))
        screen = board.wait(for: "429", timeout: 20)
        XCTAssertTrue(screen.contains("Could not read the table: Airtable"), screen)
        XCTAssertTrue(screen.contains("429"), screen)
        fake.injectOnEveryRequest(nil)
        // A 429 answered during the fake's lockout carries no Retry-After, as Airtable's: every tracker process then
        // holds back Airtable's 30 s before the next read, so the good read may come that late.
        let deadline = Date().addingTimeInterval(50)
        while board.screen.contains("Could not read") && Date() < deadline { usleep(200_000) }
        XCTAssertFalse(board.screen.contains("Could not read"), "cleared by the next good read: \(board.screen)")
        // The slower pace after the 429 shows where the failure was, until it is full again.
        XCTAssertTrue(board.screen.contains("Pace slowed to "), board.screen)
        // One listing at a time: never two reads of the table in flight.
        let reads = fake.recordLog.filter { $0.method == "GET" && $0.path.hasSuffix("Design%20projects") }
        for (earlier, later) in zip(reads, reads.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.received, later.received)
        }
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }
}

extension BoardTests {
    func testMineIsListMineAndASearchSelectsTheCardItLeaves() throws {
        try startDemoFake()
        let mine = try tracker().run(["list", "--mine"]).lines.count
        XCTAssertGreaterThan(mine, 0)
        let board = try BoardSession(tracker())
        board.wait(for: "projects · read ")
        board.press("m")
        let screen = board.wait(for: "\(mine) projects")
        XCTAssertTrue(screen.contains("\(mine) projects") && screen.contains("mine"), screen)
        board.press("m")
        board.wait(for: "Showing every project")
        // One card left, in "This week": Enter opens it without moving there first.
        board.press("/")
        board.press("Coffee", literal: true)
        board.press("Enter")
        board.wait(for: "/Coffee")
        board.press("Enter")
        let card = board.wait(for: "recPsjO1tkEyBCF7y")
        XCTAssertTrue(card.contains("recPsjO1tkEyBCF7y"), "Enter opened the card shown: \(card)")
        board.press("Escape")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
        board.close()
    }
}

extension BoardTests {
    /// What the full screen hid is on its bottom line: the team's Redis that cannot be used (its warning went to
    /// stderr, behind the screen), "Reading the table…" only while the read runs (it stayed until a key), and `o`
    /// without a browser says what to set (it said "Opened in the browser.").
    func testTheBottomLineSaysWhatTheScreenHid() throws {
        try startDemoFake()
        let board = try BoardSession(
            tracker(["TRACKER_REDIS_URL": "redis://127.0.0.1:1", "BROWSER": "tracker-no-such-browser"]))
        var screen = board.wait(for: "cannot be used")
        XCTAssertTrue(screen.contains("The Redis at redis://127.0.0.1:1 cannot be used (connection refused)"), screen)
        board.press("r")
        board.wait(for: "Reading the table…")
        let deadline = Date().addingTimeInterval(10)
        while board.screen.contains("Reading the table…") && Date() < deadline { usleep(100_000) }
        screen = board.screen
        XCTAssertFalse(screen.contains("Reading the table…"), "gone once read, without a key: \(screen)")
        XCTAssertTrue(screen.contains("cannot be used"), "the Redis is still down: \(screen)")
        board.press("o")
        screen = board.wait(for: "No browser")
        XCTAssertTrue(screen.contains("No browser to open https://airtable.com/"), screen)
        XCTAssertFalse(screen.contains("Opened in the browser"), screen)
        board.press("?")
        XCTAssertTrue(board.wait(for: "Esc: clear").contains("narrow to names holding the text (Esc: clear)"))
        board.press("q")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }
}
