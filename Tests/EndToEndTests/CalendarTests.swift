import FakeAirtable
import Foundation
import XCTest

/// `tracker calendar` run as cron runs it: the file a calendar app subscribes to.
final class CalendarTests: FakeAirtableTestCase {
    /// The events of an iCalendar text, each as its properties (unfolded on octets, TEXT unescaped).
    private func parsedEvents(_ text: String) throws -> [[String: String]] {
        XCTAssertTrue(text.hasPrefix("BEGIN:VCALENDAR\r\n"))
        XCTAssertTrue(text.hasSuffix("END:VCALENDAR\r\n"))
        var bytes = Array(text.utf8)
        for line in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            XCTAssertLessThanOrEqual(line.count, 76, String(decoding: line, as: UTF8.self))
            XCTAssertNotNil(String(validating: Array(line), as: UTF8.self), "a fold inside a UTF-8 sequence")
        }
        var unfolded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + 2 < bytes.count, bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 32 {
                index += 3
                continue
            }
            unfolded.append(bytes[index])
            index += 1
        }
        bytes = unfolded
        var events: [[String: String]] = []
        var current: [String: String]?
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            if line == "BEGIN:VEVENT" { current = [:] }
            if line == "END:VEVENT", let event = current {
                events.append(event)
                current = nil
            }
            guard current != nil, let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon]).components(separatedBy: ";")[0]
            var value = ""
            var escaping = false
            for character in line[line.index(after: colon)...] {
                if escaping {
                    value.append(character == "n" ? "\n" : character)
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else {
                    value.append(character)
                }
            }
            current?[key] = value
        }
        return events
    }

    private func listed(_ arguments: [String]) throws -> [[String: Any]] {
        let result = try tracker().run(["list", "--json"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    func testTheOpenProjectsDueDatesInOneListingSoonestFirst() throws {
        try startFake()
        let result = try tracker().run(["calendar"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(fake.recordLog.count, 1, "one listing, filtered on Airtable")
        let events = try parsedEvents(result.stdout)
        let open = try listed(["--incomplete", "--sort", "due"]).filter { $0["due"] is String }
        XCTAssertFalse(open.isEmpty)
        XCTAssertEqual(events.map { $0["UID"] }, open.map { "\($0["id"] as! String)@\(fake.options.baseID)" })
        for (event, project) in zip(events, open) {
            let due = (project["due"] as! String).replacingOccurrences(of: "-", with: "")
            XCTAssertEqual(event["DTSTART"], due)
            XCTAssertEqual(event["SUMMARY"], project["name"] as? String)
            XCTAssertEqual(event["DESCRIPTION"]?.hasPrefix("Status: not complete"), true)
            XCTAssertEqual(event["URL"]?.hasPrefix("https://airtable.com/\(fake.options.baseID)/tbl"), true)
            XCTAssertEqual(event["URL"]?.hasSuffix("/" + (project["id"] as! String)), true)
        }
        let all = try parsedEvents(try tracker().run(["calendar", "--all"]).stdout)
        XCTAssertEqual(all.count, try listed([]).filter { $0["due"] is String }.count)
        XCTAssertGreaterThan(all.count, events.count)
        let brand = try parsedEvents(try tracker().run(["calendar", "--category", "Brand identity"]).stdout)
        XCTAssertEqual(
            Set(brand.compactMap { $0["SUMMARY"] }),
            Set(open.filter { $0["category"] as? String == "Brand identity" }.compactMap { $0["name"] as? String }))
    }

    func testOutIsReplacedWholeAndLeftUntouchedWhenNothingChanged() throws {
        try startFake()
        let run = tracker()
        let path = run.runtimeDirectory + "/projects.ics"
        XCTAssertEqual(try run.run(["calendar", "--out", path]).status, 0)
        let first = try FileManager.default.attributesOfItem(atPath: path)
        Thread.sleep(forTimeInterval: 1.1)
        let again = try run.run(["calendar", "--out", path])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "", "the file, not stdout")
        let second = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual(first[.modificationDate] as? Date, second[.modificationDate] as? Date, "untouched")
        XCTAssertEqual(first[.systemFileNumber] as? Int, second[.systemFileNumber] as? Int)

        let name = try XCTUnwrap(try listed(["--incomplete"]).first { $0["due"] is String }?["name"] as? String)
        XCTAssertEqual(try run.run(["done", name]).status, 0)
        XCTAssertEqual(try run.run(["calendar", "--out", path]).status, 0)
        let third = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertNotEqual(first[.systemFileNumber] as? Int, third[.systemFileNumber] as? Int, "renamed over")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(try parsedEvents(text).contains { $0["SUMMARY"] == name })
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: run.runtimeDirectory).filter { $0.contains(".ics") },
            ["projects.ics"], "no temporary file left")

        let failed = try run.run(["calendar", "--out", run.runtimeDirectory + "/missing/projects.ics"])
        assertFailure(failed, status: 1, "cannot write output: --out ")
        XCTAssertEqual(failed.stderr.split(separator: "\n").count, 1)
    }

    func testHostileNamesAndNotesComeOutAsText() throws {
        let names = [
            "<script>alert(1)</script>", "*_[|` and, commas; semicolons \\ backslash",
            "🚀👩‍💻 宽字符 " + String(repeating: "é", count: 40), "two\nlines", "bell\u{7} and escape\u{1B}[2J",
        ]
        var records = FakeAirtable.recordedProjects
        for (index, name) in names.enumerated() {
            records.append([
                "id": "recHOSTILE00000\(index)", "createdTime": "2026-03-0\(index + 1)T10:00:00.000Z",
                "fields": ["Name": name, "Due date": "2031-01-0\(index + 1)", "Notes": name + "\r\nmore"],
            ])
        }
        try startFake(records: records)
        let result = try tracker().run(["calendar", "--due-before", "2031-12-31", "--search", ""])
        XCTAssertEqual(result.status, 64, "an empty --search is refused")
        let listing = try tracker().run(["calendar", "--due-before", "2031-12-31"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let events = try parsedEvents(listing.stdout).filter { ($0["UID"] ?? "").hasPrefix("recHOSTILE") }
        XCTAssertEqual(events.count, names.count)
        for (event, name) in zip(events, names) {
            let shown = name.replacingOccurrences(of: "\u{7}", with: "^G").replacingOccurrences(
                of: "\u{1B}", with: "^[")
            XCTAssertEqual(event["SUMMARY"], shown)
            XCTAssertEqual(event["DESCRIPTION"], "Status: not complete\n\n" + shown + "\nmore")
            XCTAssertEqual(event["DTSTAMP"]?.hasPrefix("20260"), true)
        }
        XCTAssertFalse(listing.stdout.unicodeScalars.contains { $0.value < 32 && $0 != "\r" && $0 != "\n" })
    }
}
