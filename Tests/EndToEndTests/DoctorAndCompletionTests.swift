import FakeAirtable
import Foundation
import XCTest

final class DoctorAndCompletionTests: FakeAirtableTestCase {
    func testDoctorReportsEachCheckWithTheTokenMasked() throws {
        try startFake()
        let result = try tracker().run(["doctor"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // The month's line counts doctor's own requests and projects them by the day of the month: its shape is checked.
        let month = result.lines.first { $0.contains("requests this month by tracker") } ?? ""
        XCTAssertTrue(month.hasPrefix("ok        4 requests this month by tracker, "), month)
        XCTAssertTrue(month.hasSuffix(" at this pace by its end (set \"plan\" to see the share)"), month)
        XCTAssertEqual(
            result.lines.filter { $0 != month },
            [
                "secrets   none; everything comes from the environment", "token     pat…a4e1 (from AIRTABLE_TOKEN)",
                "endpoint  \(fake.endpoint)", "base      appFAKEbase000001, table \"Design projects\"",
                "ok        token accepted (user usrFAKEuser000001)", "ok        base and table reachable",
                "ok        all 9 fields tracker uses exist",
                "ok        views for list --view: \"All projects\", \"Incomplete projects by leader\", \"Completed projects\", \"Project calendar\", \"Due dates only\"",
                "ok        Tasks table \"Tasks\": name \"Name\", project \"Design project\", estimate \"Time estimate (days)\", complete \"Completed\", assignee \"Assignee\", notes \"Notes\"",
                "ok        attach and files use \"Project images\"",
                "ok        no schema remembered yet (\(result.environmentHome)/.cache/tracker); the next command reads it",
                "ok        pace 5 requests a second, within Airtable's 5",
                "ok        budget and locks shared by this machine's tracker processes; set \"redis\" to share them across machines",
                "ok        no webhook yet: board, mcp and changes make the base's one when they start (creator's permission needed; else ids every 5 minutes)",
            ])
        XCTAssertFalse(result.stdout.contains(fake.options.token))
    }

    /// After a 429 every process goes slower for a while; doctor says so beside the configured pace (it said "pace 5
    /// requests a second" while the machine went at 2).
    func testDoctorSaysThePaceIsSlowedAfterA429() throws {
        var options = FakeAirtable.Options()
        options.lockoutSeconds = 1
        try startFake(options: options)
        let run = tracker()
        // The schema remembered first, so the listing that meets the 429 is the only request in flight.
        XCTAssertEqual(try run.run(["list"]).status, 0)
        fake.inject(.rateLimited(retryAfter: "1"), onNextRequestWithMethod: "GET")
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let result = try run.run(["doctor"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let pace = try XCTUnwrap(result.lines.first { $0.contains("pace 5") })
        // Slowed 2.5 times after one 429 (more if the fake's lockout answered another), for two minutes at most.
        XCTAssertTrue(pace.hasPrefix("ok        pace 5 requests a second, within Airtable's 5; now "), pace)
        XCTAssertTrue(pace.contains("slowed to "), pace)
        XCTAssertTrue(pace.contains(" a second after a 429 (5 set), full again in "), pace)
    }

    func testDoctorSkipsTheFieldCheckWithoutSchemaAccess() throws {
        var options = FakeAirtable.Options()
        options.grantsSchemaAccess = false
        try startFake(options: options)
        let result = try tracker().run(["doctor"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.lines.contains("skipped   field check: the token lacks schema.bases:read"), result.stdout)
        XCTAssertTrue(result.lines.contains("skipped   tasks check: the token lacks schema.bases:read"), result.stdout)
    }

    func testDoctorFailsWithTheCodeOfTheFailingCheck() throws {
        try startFake()
        let badToken = try tracker([
            "AIRTABLE_TOKEN": "patBADbadbad00000.000000000000000000000000000000000000000000000000000000000000dead"
        ]).run(["doctor"])
        XCTAssertEqual(badToken.status, 77)
        XCTAssertTrue(
            badToken.stderr.hasPrefix("tracker: Airtable did not accept the token (HTTP 401"), badToken.stderr)
        XCTAssertTrue(badToken.stdout.contains("token     pat…dead (from AIRTABLE_TOKEN)"))
        let badBase = try tracker(["AIRTABLE_BASE_ID": "appWRONGwrong0000"]).run(["doctor"])
        XCTAssertEqual(badBase.status, 77)
        XCTAssertTrue(badBase.stdout.contains("ok        token accepted"))
        XCTAssertFalse(badBase.stdout.contains("reachable"))
    }

    func testTheBashScriptCompletesCommandsFlagsAndValues() throws {
        var process = bareTracker()
        try process.putOnPath()
        let script = try process.run(["completion", "bash"])
        XCTAssertEqual(script.status, 0)
        func complete(_ words: [String]) throws -> [String] {
            try bashCompletions(words, script: script.stdout, process)
        }
        XCTAssertEqual(try complete(["tracker", "li"]), ["list"])
        XCTAssertEqual(
            Set(try complete(["tracker", ""]).filter { !$0.hasPrefix("-") }),
            [
                "list", "add", "show", "open", "comment", "comments", "update", "edit", "done", "reopen", "delete",
                "import", "tasks", "task", "status", "board", "attach", "files", "clients",
                "report", "changes",
                "calendar", "timeline", "history", "undo", "approvals", "approve", "reject",
                "init", "demo", "mcp", "serve", "doctor", "usage", "completion", "help",
            ])
        XCTAssertEqual(Set(try complete(["tracker", "calendar", "--o"])), ["--out", "--overdue"])
        XCTAssertEqual(try complete(["tracker", "report", "--by", ""]), ["none", "lead", "category"])
        XCTAssertEqual(
            try complete(["tracker", "report", "--format", ""]), ["text", "markdown", "html", "json", "email"])
        XCTAssertEqual(try complete(["tracker", "changes", "--format", ""]), ["text", "json", "ndjson"])
        XCTAssertEqual(try complete(["tracker", "list", "--form"]), ["--format"])
        XCTAssertEqual(try complete(["tracker", "list", "--format", ""]), ["table", "tsv", "csv", "json", "ndjson"])
        XCTAssertEqual(try complete(["tracker", "list", "--sort", "k"]), ["kickoff"])
        XCTAssertEqual(try complete(["tracker", "add", "--category", "Bra"]), ["Brand\\ identity"])
        XCTAssertEqual(try complete(["tracker", "add", "--if"]), ["--if-absent"])
        XCTAssertEqual(try complete(["tracker", "completion", "z"]), ["zsh"])
        // attach: the project, then files; files --download: a directory.
        _ = FileManager.default.createFile(atPath: process.runtimeDirectory + "/mockup.png", contents: Data("x".utf8))
        try FileManager.default.createDirectory(
            atPath: process.runtimeDirectory + "/mockups", withIntermediateDirectories: true)
        XCTAssertEqual(Set(try complete(["tracker", "attach", "Coffee", "mo"])), ["mockup.png", "mockups"])
        XCTAssertEqual(try complete(["tracker", "attach", "--client", "Acme", "mockup."]), ["mockup.png"])
        XCTAssertEqual(try complete(["tracker", "files", "Coffee", "--download", "mo"]), ["mockups"])
        XCTAssertEqual(try complete(["tracker", "attach", "--fi"]), ["--field"])
    }

    func testCompletionScriptsForEveryShellAndAnUnknownOne() throws {
        let process = bareTracker()
        XCTAssertTrue(try process.run(["completion", "zsh"]).stdout.hasPrefix("#compdef tracker\n"))
        XCTAssertTrue(try process.run(["completion", "fish"]).stdout.contains("complete -c tracker"))
        let unknown = try process.run(["completion", "tcsh"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(
            unknown.stderr,
            "tracker: unsupported shell 'tcsh'; expected one of: bash, zsh, fish\nRun 'tracker help completion' for usage.\n"
        )
    }
}
