import FakeAirtable
import Foundation
import XCTest

/// A newcomer's first run and daily rough edges: init, help, flags as people type them, feedback while waiting,
/// narrow terminals, chosen columns, doctor --json, the manual.
final class FirstRunTests: FakeAirtableTestCase {
    private func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    // MARK: - init

    func testInitWritesAPrivateFileThatListUsesWithNothingElse() throws {
        try startFake()
        let home = bareTracker(["AIRTABLE_ENDPOINT_URL": fake.endpoint])
        let path = home.runtimeDirectory + "/.config/tracker/Secrets.json"
        let result = try home.run(["init", "--base", fake.options.baseID], stdin: fake.options.token + "\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "")
        // Piped, one line naming the file (it printed nothing before).
        XCTAssertEqual(
            result.stderr,
            "Saved \(path) (token pat…\(fake.options.token.suffix(4)), base \(fake.options.baseID), table \"Design projects\").\n"
        )
        XCTAssertEqual(mode(path), 0o600)
        XCTAssertEqual(mode(home.runtimeDirectory + "/.config/tracker"), 0o700)
        let saved = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: String])
        XCTAssertEqual(
            saved,
            [
                "token": fake.options.token, "baseId": fake.options.baseID, "table": "Design projects",
                "endpoint": fake.endpoint,
            ])
        XCTAssertEqual(fake.recordLog.count, 1, "one read checked the token and the table")
        // Afterwards tracker needs nothing but the file: no Airtable variables at all.
        let alone = bareTracker(["HOME": home.runtimeDirectory])
        let listed = try alone.run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.lines.count, 16)

        let again = try home.run(["init", "--base", fake.options.baseID], stdin: "patOTHERother0000.1\n")
        assertFailure(again, status: 64, "\(path) already exists; pass --force to replace it")
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains(fake.options.token))
        let forced = try home.run(
            ["init", "--base", fake.options.baseID, "--table", "Design projects", "--force"],
            stdin: fake.options.token + "\n")
        XCTAssertEqual(forced.status, 0, forced.stderr)
    }

    /// `init --redis URL` checks the team's Redis with one round trip before it writes `"redis"`; `-q` says nothing.
    func testInitWritesTheTeamsRedisOnlyOnceItAnswered() throws {
        try startFake()
        let redis = try RedisServer(password: "s3cret word")
        let home = bareTracker(["AIRTABLE_ENDPOINT_URL": fake.endpoint])
        let path = home.runtimeDirectory + "/.config/tracker/Secrets.json"
        let token = fake.options.token + "\n"
        let wrong = try home.run(
            ["init", "--base", fake.options.baseID, "--redis", redis.url(password: "nope")], stdin: token)
        assertFailure(wrong, status: 78, "refused the password")
        XCTAssertFalse(wrong.stderr.contains("nope"), wrong.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        let typo = try home.run(["init", "--base", fake.options.baseID, "--redis", "http://127.0.0.1:1"], stdin: token)
        assertFailure(typo, status: 64, "--redis: it must start with redis://, rediss:// or unix://")
        let right = try home.run(
            ["init", "--base", fake.options.baseID, "--redis", redis.url(password: "s3cret%20word"), "-q"], stdin: token
        )
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertEqual(right.stdout + right.stderr, "", "-q: nothing on success")
        let saved = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: String])
        XCTAssertEqual(saved["redis"], redis.url(password: "s3cret%20word"))
        let doctor = try bareTracker(["HOME": home.runtimeDirectory]).run(["doctor"])
        XCTAssertTrue(
            doctor.lines.contains { $0.hasPrefix("ok        redis://") && $0.contains("authenticated") }, doctor.stdout)
    }

    /// A team lead reading the help learns that machines share through a Redis, and how to set it.
    func testTheHelpSaysHowSeveralMachinesShare() throws {
        for topic in [[], ["init"], ["add"], ["doctor"], ["board"]] {
            let page = try bareTracker().run(["help"] + topic)
            XCTAssertEqual(page.status, 0)
            XCTAssertTrue(page.stdout.contains("Redis"), "help \(topic): \(page.stdout)")
        }
        XCTAssertTrue(try bareTracker().run(["help", "init"]).stdout.contains("--redis URL"))
    }

    /// A cron host set up with the environment alone needs no AIRTABLE_TABLE: the table defaults as init's does.
    func testTheEnvironmentAloneDefaultsTheTableAsInitDoes() throws {
        try startFake()
        let cron = bareTracker([
            "AIRTABLE_ENDPOINT_URL": fake.endpoint, "AIRTABLE_TOKEN": fake.options.token,
            "AIRTABLE_BASE_ID": fake.options.baseID,
        ])
        let listed = try cron.run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.lines.count, 16)
    }

    func testInitChecksTheTokenAndTableBeforeWritingAnything() throws {
        try startFake()
        let home = bareTracker(["AIRTABLE_ENDPOINT_URL": fake.endpoint])
        let path = home.runtimeDirectory + "/.config/tracker/Secrets.json"
        let badToken = try home.run(
            ["init", "--base", fake.options.baseID],
            stdin: "patWRONGwrong0000.0000000000000000000000000000000000000000000000000000000000000bad\n")
        assertFailure(badToken, status: 77, "Airtable did not accept the token")
        let badTable = try home.run(
            ["init", "--base", fake.options.baseID, "--table", "Design projekts"], stdin: fake.options.token + "\n")
        assertFailure(badTable, status: 77, "Airtable denied access to table \"Design projekts\"")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        let noBase = try home.run(["init"], stdin: fake.options.token + "\n")
        assertFailure(noBase, status: 64, "init needs --base ID when stdin is not a terminal")
    }

    func testNoSecretsFoundNamesThePathsAndPointsAtInit() throws {
        let none = bareTracker()
        let result = try none.run(["list"])
        assertFailure(
            result, status: 78,
            "no secrets found: looked for \(none.runtimeDirectory)/Secrets.json and \(none.runtimeDirectory)/.config/tracker/Secrets.json"
        )
        XCTAssertTrue(
            result.stderr.hasSuffix(
                "Run 'tracker init' to create one, or set AIRTABLE_TOKEN and AIRTABLE_BASE_ID (and AIRTABLE_TABLE if the table is not \"Design projects\").\n"
            ))
        var homeless = bareTracker()
        homeless.environment["HOME"] = nil
        assertFailure(try homeless.run(["list"]), status: 78, "(HOME is not set)")
    }

    // MARK: - Help and flags

    func testHelpWinsOverAnyOtherProblemOnTheLine() throws {
        let run = bareTracker()
        for arguments in [["add", "-h", "--name"], ["list", "--bogus", "--help"], ["add", "--due", "someday", "-h"]] {
            let result = try run.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("\nUSAGE\n"), "\(arguments)")
            XCTAssertEqual(result.stderr, "")
        }
        XCTAssertTrue(try run.run(["add", "-h", "--name"]).stdout.hasPrefix("Create a project and print its id."))
    }

    func testFlagsAsPeopleTypeThem() throws {
        try startFake()
        XCTAssertEqual(
            try tracker().run(["--limit", "1", "list"]).lines.count, 1, "a command's flag before the command")
        XCTAssertEqual(try tracker().run(["list", "--limit", "20", "--limit", "5"]).lines.count, 5, "the last wins")
        let sorted = try tracker().run(["list", "--sort", "Name", "--format", "TSV"])
        XCTAssertEqual(sorted.status, 0, sorted.stderr)
        XCTAssertEqual(
            sorted.lines.map { $0.split(separator: "\t")[1] },
            sorted.lines.map { $0.split(separator: "\t")[1] }.sorted())
        assertFailure(
            try tracker().run(["--limit", "1", "add"]), status: 64,
            "--limit is not a flag of 'tracker add'; it belongs to 'tracker list'")
        assertFailure(
            try tracker().run(["list", "--limit", "0"]), status: 64,
            "--limit must be a whole number from 1 to 1,000,000")
    }

    // MARK: - The table

    func testANarrowTableKeepsTheDateAndSaysWhatItLeftOut() throws {
        try startFake()
        let result = try tracker(["COLUMNS": "60"]).run(["list", "--format", "table", "--color", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in result.lines { XCTAssertLessThanOrEqual(line.count, 60, line) }
        XCTAssertTrue(
            result.lines.dropFirst().allSatisfy {
                $0.range(of: #"20\d\d-\d\d-\d\d"#, options: .regularExpression) != nil
            })
        XCTAssertTrue(
            result.stderr.contains(
                "tracker: CATEGORY and LEAD left out to fit 60 columns (try --columns id,name,category,lead-name)"),
            result.stderr)
        let wide = try tracker(["COLUMNS": "140"]).run(["list", "--format", "table", "--color", "never"])
        XCTAssertFalse(wide.stderr.contains("left out"))
        XCTAssertTrue(wide.lines[1].contains(" ago)"), wide.lines[1])
    }

    func testLimitSaysWhenMoreProjectsMatch() throws {
        try startFake()
        let some = try tracker().run(["list", "--format", "table", "--limit", "5"])
        XCTAssertEqual(some.lines.count, 6)
        XCTAssertTrue(
            some.stderr.hasPrefix("5 projects: ") && some.stderr.contains(" (showing 5; more match)\n"), some.stderr)
        let all = try tracker().run(["list", "--format", "table", "--limit", "16"])
        XCTAssertFalse(all.stderr.contains("more match"), all.stderr)
        XCTAssertEqual(try tracker().run(["list", "--limit", "5"]).stderr, "", "nothing of it in a pipe")
    }

    func testColumnsPickAndOrderWhatIsPrinted() throws {
        try startFake()
        let csv = try tracker().run(["list", "--columns", "name,lead-email,team,complete", "--format", "csv"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let rows = csv.stdout.components(separatedBy: "\r\n")
        XCTAssertEqual(rows[0], "name,lead-email,team,complete")
        XCTAssertTrue(
            rows.contains(
                "CMCA brand identity,katherineduh+collab10@demo.htable.com,katherineduh+collab35@demo.htable.com;katherineduh+collab37@demo.htable.com,false"
            ), csv.stdout)
        // A name that is neither one of tracker's columns nor a field of the base, after the schema is read again.
        let listings = fake.recordLog.count
        let unknown = try tracker().run(["list", "--columns", "name,priority"])
        assertFailure(unknown, status: 64, #"--columns: the table has no field "priority""#)
        XCTAssertEqual(fake.recordLog.count, listings, "nothing listed")
        assertFailure(
            try tracker().run(["list", "--columns", "name", "--json"]), status: 64,
            "--columns is for the table, tsv and csv")
    }

    // MARK: - doctor --json, the manual, notes

    func testDoctorJSONRunsEveryCheck() throws {
        try startFake()
        let good = try tracker().run(["doctor", "--json"])
        XCTAssertEqual(good.status, 0, good.stderr)
        let checks = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(good.stdout.utf8)) as? [String: Any])?["checks"]
                as? [[String: Any]])
        XCTAssertEqual(
            checks.map { $0["name"] as? String },
            [
                "configuration", "token", "table", "fields", "views", "tasks", "files", "cache", "pace", "month",
                "sharing", "deletions",
            ])
        XCTAssertTrue(checks.allSatisfy { $0["ok"] as? Bool == true })
        let tasks = checks.first { $0["name"] as? String == "tasks" }?["detail"] as? String
        XCTAssertTrue(
            tasks?.hasPrefix("Tasks table \"Tasks\": name \"Name\", project \"Design project\"") == true,
            "\(tasks ?? "")")
        let files = checks.first { $0["name"] as? String == "files" }?["detail"] as? String
        XCTAssertEqual(files, "attach and files use \"Project images\"")

        let wrong = try tracker(["AIRTABLE_TABLE": "Design projekts"]).run(["doctor", "--json"])
        XCTAssertEqual(wrong.status, 77)
        let failed = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(wrong.stdout.utf8)) as? [String: Any])?["checks"]
                as? [[String: Any]])
        XCTAssertEqual(
            failed.map { $0["ok"] as? Bool }, [true, true, false, true, true, true, true, true, true, true, true],
            "every check ran"
        )
        XCTAssertTrue(
            (failed[2]["detail"] as? String)?.contains(
                #"this base has the tables: "Design projects", "Clients", "Tasks""#) == true)

        let fast = try configuredTracker(#""requestsPerSecond": 8"#)
        let paced = try fast.run(["doctor"])
        XCTAssertEqual(paced.status, 78)
        XCTAssertTrue(
            paced.stdout.contains(
                "failed    pace: requestsPerSecond is 8, above Airtable's limit of 5 a second per base"), paced.stdout)
    }

    func testTheManualPageIsGeneratedAndReadsInMan() throws {
        let manual = try bareTracker().run(["help", "--man"])
        XCTAssertEqual(manual.status, 0)
        XCTAssertTrue(manual.stdout.hasPrefix(".TH TRACKER 1 "))
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else {
            throw XCTSkip("man is not installed")
        }
        let path = bareTracker().runtimeDirectory + "/tracker.1"
        try manual.stdout.write(toFile: path, atomically: false, encoding: .utf8)
        let (status, text) = try runProgram(
            "/usr/bin/man", ["-l", path],
            environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(status, 0)
        for heading in ["NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS"] {
            XCTAssertTrue(text.contains(heading), heading)
        }
        XCTAssertTrue(text.contains("--if-absent"), text)
    }

    func testNotesFromStdinLoseOneTrailingNewline() throws {
        try startFake()
        let added = try tracker().run(
            ["add", "--name", "Notes", "--due", "2030-01-01", "--notes-file", "-"], stdin: "one\ntwo\n")
        let id = added.stdout.trimmingCharacters(in: .newlines)
        let notes = fake.records.first { $0["id"] as? String == id }.flatMap {
            ($0["fields"] as? [String: Any])?["Notes"] as? String
        }
        XCTAssertEqual(notes, "one\ntwo")
    }

    // MARK: - On a terminal

    func testOnATerminalASlowListingSaysWhatItIsDoingAndClearsIt() throws {
        try startFake()
        fake.inject(.delay(seconds: 2), onRequest: 1)
        let (status, screen) = try onATerminal(["list", "--color", "never"], tracker())
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("tracker: read 0 projects…"), screen)
        XCTAssertTrue(screen.contains("\r\u{1B}[KID "), "cleared before the table: \(screen.debugDescription)")
        fake.inject(.delay(seconds: 2), onRequest: 1)
        let piped = try tracker().run(["list"])
        XCTAssertEqual(piped.stderr, "", "nothing of it in a pipe")
    }

    func testOnATerminalEveryRateLimitWaitCountsDown() throws {
        try startFake(options: .lockingOut(for: 2))
        // The schema remembered first: cold, its read would go out beside the listing and meet the lockout too.
        let run = tracker()
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let limited = FakeAirtable.Fault.rateLimited(retryAfter: "2")
        fake.inject(limited, onRequest: 1)
        fake.inject(limited, onRequest: 2)
        let (status, screen) = try onATerminal(["list", "--color", "never"], run)
        XCTAssertEqual(status, 0, screen)
        XCTAssertEqual(
            screen.components(separatedBy: "retrying in 2s…").count - 1, 2, "said for each lockout: \(screen)")
        XCTAssertTrue(screen.contains("retrying in 1s…"))
    }
}
