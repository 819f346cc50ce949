import FakeAirtable
import Foundation
import XCTest

/// `tracker report` as cron runs it: one listing, nothing when there is nothing, and a mail sendmail can send.
final class ReportTests: FakeAirtableTestCase {

    private func day(_ days: Int) -> String { localDay(days) }

    /// An instant `days` days from now.
    private func time(_ days: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date().addingTimeInterval(days * 86400))
    }

    private func project(
        _ id: String, _ name: String, due: String?, complete: Bool = false, created: String,
        completed: String? = nil
    ) -> [String: Any] {
        var fields: [String: Any] = ["Name": name]
        if let due { fields["Due date"] = due }
        if complete { fields["Complete"] = true }
        var record: [String: Any] = ["id": id, "createdTime": created, "fields": fields]
        if let completed { record["lastModifiedTimes"] = ["Complete": completed] }
        return record
    }

    /// One of each kind, and the ones that are in no section.
    private var mixedProjects: [[String: Any]] {
        [
            project("recOVERDUE0000001", "Late <b>bold</b>", due: day(-3), created: time(-100)),
            project("recDUESOON0000001", "Due soon *_[|", due: day(2), created: time(-100)),
            project("recDUELATER000001", "Due after the span", due: day(20), created: time(-100)),
            project(
                "recDONENOW0000001", "Done lately", due: day(-1), complete: true, created: time(-100),
                completed: time(-2)),
            project(
                "recDONEOLD0000001", "Done long ago", due: day(-60), complete: true, created: time(-100),
                completed: time(-30)),
            project("recNEWNODUE000001", "New, no due date", due: nil, created: time(-1)),
        ]
    }

    private func sections(_ result: ProcessResult) throws -> [String: [String]] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let sections = try XCTUnwrap(object["sections"] as? [String: [[String: Any]]])
        return sections.mapValues { $0.map { $0["id"] as! String } }
    }

    func testEachProjectIsInTheSectionsItFitsFromOneFilteredListing() throws {
        try startFake(records: mixedProjects)
        let result = try tracker().run(["report", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let found = try sections(result)
        XCTAssertEqual(found["overdue"], ["recOVERDUE0000001"])
        XCTAssertEqual(found["due"], ["recDUESOON0000001"])
        XCTAssertEqual(found["done"], ["recDONENOW0000001"])
        XCTAssertEqual(found["new"], ["recNEWNODUE000001"])
        // One listing of the projects, and beside it one of the open tasks (for the overdue projects' section).
        let projects = fake.recordLog.filter { $0.path.contains("/Design") }
        XCTAssertEqual(projects.count, 1, "one listing")
        XCTAssertEqual(fake.recordLog.count, 2, "\(fake.recordLog.map(\.path))")
        XCTAssertEqual(
            fake.recordLog.filter { $0.path.hasSuffix("/Tasks") || $0.path.hasSuffix("/tblFAKEtasks00001") }.count, 1)
        XCTAssertEqual(projects.first?.status, 200)
        let query = projects.first?.query.removingPercentEncoding ?? ""
        XCTAssertTrue(query.contains("LAST_MODIFIED_TIME({Complete})"), query)
        // A wider span takes in the later due date; a filter narrows every section.
        let wider = try sections(try tracker().run(["report", "--json", "--days", "31"]))
        XCTAssertEqual(wider["due"], ["recDUESOON0000001", "recDUELATER000001"])
        XCTAssertEqual(wider["done"], ["recDONENOW0000001", "recDONEOLD0000001"])
        let searched = try sections(try tracker().run(["report", "--json", "--search", "done"]))
        XCTAssertEqual(searched, ["overdue": [], "due": [], "done": ["recDONENOW0000001"], "new": []])
    }

    func testMarkingAProjectDoneBringsItIntoDone() throws {
        try startFake(records: mixedProjects)
        let run = tracker()
        XCTAssertEqual(try run.run(["done", "recOVERDUE0000001"]).status, 0)
        let found = try sections(try run.run(["report", "--json"]))
        XCTAssertEqual(found["done"]?.sorted(), ["recDONENOW0000001", "recOVERDUE0000001"])
        XCTAssertEqual(found["overdue"], [])
    }

    func testNothingToReportPrintsNothingUnlessAlways() throws {
        try startFake(records: [project("recQUIET000000001", "Quiet", due: day(40), created: time(-100))])
        for format in ["text", "markdown", "html", "json"] {
            let quiet = try tracker().run(["report", "--format", format])
            XCTAssertEqual(quiet.status, 0, quiet.stderr)
            XCTAssertEqual(quiet.stdout + quiet.stderr, "", "cron mails nothing (\(format))")
        }
        let mail = try tracker().run(["report", "--format", "email", "--to", "lead@example.com"])
        XCTAssertEqual(mail.stdout, "")
        let always = try tracker().run(["report", "--always"])
        XCTAssertEqual(always.stdout, "nothing overdue, due or done in the last and next 7 days\n")
        let json = try tracker().run(["report", "--always", "--json"])
        XCTAssertTrue(json.stdout.contains(#""sections":{"overdue":[],"due":[],"done":[],"new":[]}"#), json.stdout)
    }

    func testTextMarkdownAndHTMLKeepHostileNamesAsText() throws {
        try startFake(records: mixedProjects)
        let text = try tracker(["COLUMNS": "200"]).run(["report"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.lines.allSatisfy { $0.count <= 80 }, text.stdout)
        XCTAssertTrue(text.stdout.contains("\nOverdue (1)\n  Late <b>bold</b>"), text.stdout)
        XCTAssertTrue(text.stdout.contains("\nDone (1)\n  Done lately"), text.stdout)
        let markdown = try tracker().run(["report", "--format", "markdown"])
        // Each name links to the record's address, as `show` prints it; the name stays escaped inside the link.
        XCTAssertTrue(
            markdown.stdout.contains(
                "## Due soon (1)\n\n- [Due soon \\*\\_\\[\\|](https://airtable.com/appFAKEbase000001/tblFAKEdesign0001/recDUESOON0000001) (due \(day(2)))"
            ), markdown.stdout)
        let html = try tracker().run(["report", "--format", "html"])
        XCTAssertTrue(
            html.stdout.contains(
                #"<a href="https://airtable.com/appFAKEbase000001/tblFAKEdesign0001/recOVERDUE0000001" style="color:#0969da">Late &lt;b&gt;bold&lt;/b&gt;</a>"#
            ), html.stdout)
        XCTAssertFalse(html.stdout.contains("<b>"))
    }

    func testTheMailIsAWholeMessageWithCountsInTheSubject() throws {
        try startFake(records: mixedProjects)
        let result = try tracker(["EMAIL": "Tracker Bot <bot@example.com>"]).run([
            "report", "--format", "email", "--to", "Zoë Lead <lead@example.com>", "--to", "ops@example.com",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let message = result.stdout
        let head = message.components(separatedBy: "\n\n")[0].split(separator: "\n").map(String.init)
        XCTAssertTrue(head.contains("From: \"Tracker Bot\" <bot@example.com>"), "\(head)")
        XCTAssertTrue(head.contains("To: =?UTF-8?B?Wm/DqyBMZWFk?= <lead@example.com>, ops@example.com"), "\(head)")
        XCTAssertTrue(head.contains("Subject: Design projects: 1 overdue, 1 due soon, 1 done"), "\(head)")
        XCTAssertTrue(head.contains("MIME-Version: 1.0"))
        XCTAssertTrue(head.contains { $0.hasPrefix("Date: ") && $0.count > 30 })
        XCTAssertTrue(head.contains { $0.hasPrefix("Message-ID: <tracker.") && $0.hasSuffix(">") })
        XCTAssertTrue(head.contains { $0.hasPrefix("Content-Type: multipart/alternative; boundary=\"=_tracker_") })
        XCTAssertTrue(message.contains("Content-Type: text/plain; charset=utf-8"))
        XCTAssertTrue(message.contains("Content-Type: text/html; charset=utf-8"))
        XCTAssertTrue(message.split(separator: "\n").allSatisfy { $0.utf8.count <= 78 })
        XCTAssertTrue(message.utf8.allSatisfy { $0 < 128 }, "8-bit text is encoded")
        let unbroken = message.replacingOccurrences(of: "=\n", with: "")
        XCTAssertTrue(unbroken.contains("Late <b>bold</b>"), "the text part, quoted-printable")
        XCTAssertTrue(unbroken.contains("Late &lt;b&gt;bold&lt;/b&gt;"), "the HTML part")
        let bad = try tracker().run(["report", "--format", "email"])
        assertFailure(bad, status: 64, "--format email needs --to ADDRESS, the recipient")
    }

    /// A table named by someone hostile: its control characters never reach a header raw, so no header can be added.
    func testATableNamedWithControlCharactersAddsNoHeaderAndAMailParserReadsTheMessageBack() throws {
        var options = FakeAirtable.Options()
        options.table = "Design\u{1B}]0;pwned\u{7} projects\r\nBcc: all@example.com"
        try startFake(records: mixedProjects, options: options)
        let result = try tracker().run(["report", "--format", "email", "--to", "lead@example.com"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let head = result.stdout.components(separatedBy: "\n\n")[0]
        let headers = head.split(separator: "\n", omittingEmptySubsequences: false)
        // Each line is a header of its own name or a continuation; none is Bcc, none holds a control character.
        XCTAssertTrue(
            headers.allSatisfy {
                $0.hasPrefix(" ") || $0.range(of: "^[A-Za-z-]+: ", options: .regularExpression) != nil
            }, head)
        XCTAssertFalse(headers.contains { $0.lowercased().hasPrefix("bcc") }, head)
        XCTAssertTrue(
            result.stdout.utf8.allSatisfy { ($0 >= 32 && $0 < 127) || $0 == 10 }, "no raw control in the message")

        // Read back by a real mail parser (Python's email package, RFC 5322 policy), where the machine has one.
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { return }
        let message = NSTemporaryDirectory() + "tracker-mail-\(UUID().uuidString).eml"
        try result.stdout.write(toFile: message, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: message) }
        let script = """
            import email, email.policy, json, sys
            m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.default)
            parts = [p.get_content() for p in m.walk() if not p.is_multipart()]
            print(json.dumps({"bcc": m.get_all("Bcc"), "to": str(m["To"]), "subject": str(m["Subject"]),
                "defects": len(m.defects) + sum(len(p.defects) for p in m.walk()), "keys": m.keys(),
                "types": [p.get_content_type() for p in m.walk() if not p.is_multipart()], "text": parts[0]}))
            """
        let parsed = try runProgram(python, ["-c", script, message])
        XCTAssertEqual(parsed.status, 0, parsed.stdout)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Any])
        XCTAssertTrue(object["bcc"] is NSNull, "\(object)")
        XCTAssertEqual(object["to"] as? String, "lead@example.com")
        XCTAssertEqual(object["defects"] as? Int, 0, "\(object)")
        XCTAssertEqual(object["types"] as? [String], ["text/plain", "text/html"])
        let subject = try XCTUnwrap(object["subject"] as? String)
        XCTAssertTrue(subject.hasPrefix("Design^[]0;pwned^G projects"), subject)
        XCTAssertTrue(subject.hasSuffix(": 1 overdue, 1 due soon, 1 done"), subject)
        XCTAssertFalse(subject.unicodeScalars.contains { $0.value < 32 || $0.value == 127 }, subject)
        XCTAssertEqual((object["keys"] as? [String])?.filter { $0.lowercased() == "subject" }.count, 1)
        XCTAssertTrue((object["text"] as? String)?.contains("Late <b>bold</b>") == true, "\(object)")
    }

    func testTheCustomisedBaseAsksForTheStatusSelectsChangeTime() throws {
        var options = FakeAirtable.Options.customisedBase
        options.grantsSchemaAccess = true
        try startFake(records: FakeAirtable.customisedProjects, options: options)
        let run = try configuredTracker(
            #""fields": {"category": "Type", "complete": {"field": "Status", "done": "Done", "open": "In progress"}}"#)
        let open = try XCTUnwrap(
            fake.records.first { ($0["fields"] as? [String: Any])?["Status"] as? String == "In progress" })
        let id = try XCTUnwrap(open["id"] as? String)
        XCTAssertEqual(try run.run(["done", id]).status, 0)
        let result = try run.run(["report", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let query = fake.recordLog.last { $0.path.contains("/Design") }?.query.removingPercentEncoding ?? ""
        XCTAssertTrue(query.contains("LAST_MODIFIED_TIME({Status})"), query)
        XCTAssertEqual(try sections(result)["done"], [id], "the projects done long ago are not done lately")
    }
}
