import FakeAirtable
import Foundation
import XCTest

/// `tracker timeline` as a person pipes it into mail and sees it on a terminal.
final class TimelineTests: FakeAirtableTestCase {
    func testPipedItIsPlainASCIIWithARowPerOpenProjectSoonestFirst() throws {
        try startFake()
        let run = tracker(["COLUMNS": "100", "LANG": "C.UTF-8"])
        let result = try run.run(["timeline"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        // One listing of the projects, filtered on Airtable, and beside it one of the tasks for done/total.
        XCTAssertEqual(fake.recordLog.count, 2, "\(fake.recordLog.map(\.path))")
        XCTAssertTrue(result.stdout.unicodeScalars.allSatisfy { $0.isASCII && ($0.value >= 32 || $0 == "\n") })
        let listing = try run.run(["list", "--json", "--incomplete", "--sort", "due"])
        let open = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
            .filter { $0["due"] is String }
        let rows = Array(result.lines.dropFirst(2))
        XCTAssertEqual(rows.count, open.count)
        for (row, project) in zip(rows, open) {
            XCTAssertLessThanOrEqual(row.count, 100, row)
            XCTAssertTrue(row.dropFirst(2).hasPrefix((project["name"] as! String).prefix(10)), row)
            // The project's tasks, done of all, after the due date (Coffee packaging has the recorded base's one).
            let tasks = project["name"] as? String == "Coffee packaging" ? " 0/1" : ""
            XCTAssertTrue(row.hasSuffix(" " + (project["due"] as! String).suffix(5) + tasks), row)
            XCTAssertEqual(row.hasPrefix("! "), project["status"] as? String == "overdue", row)
        }
        let brand = try run.run(["timeline", "--category", "brand identity"])
        let brandOpen = open.filter { $0["category"] as? String == "Brand identity" }.count
        XCTAssertGreaterThan(brandOpen, 0)
        XCTAssertEqual(brand.lines.count - 2, brandOpen)
        let none = try run.run(["timeline", "--search", "no project has this"])
        XCTAssertEqual(none.status, 0)
        XCTAssertEqual(none.stdout, "", "nothing to draw prints nothing, so cron mails nothing")
    }

    func testOnAUTF8TerminalItDrawsLinesAndOverdueInRed() throws {
        try startFake()
        let (status, screen) = try onATerminal(
            ["timeline", "--weeks", "6"], tracker(["LANG": "C.UTF-8", "LC_ALL": "", "LC_CTYPE": ""]), columns: 90)
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("▼"), screen)
        XCTAssertTrue(screen.contains("\u{1B}[31m! "), "overdue rows in red")
        XCTAssertFalse(screen.contains("\u{1B}[2J"))
    }
}
