import FakeAirtable
import Foundation
import XCTest

/// The built binary against the loopback fake: listing, add then show, and every exit code of the core commands.
final class CoreCommandTests: FakeAirtableTestCase {
    func testListReadsEveryPageOf250Projects() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 250))
        let tsv = try tracker().run(["list"])
        XCTAssertEqual(tsv.status, 0, tsv.stderr)
        XCTAssertEqual(tsv.lines.count, 250)
        XCTAssertEqual(tsv.stderr, "")
        XCTAssertTrue(tsv.lines.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 6 })

        let json = try tracker().run(["list", "--json"])
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(Set(array.compactMap { $0["id"] as? String }).count, 250)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "GET" }.count, 6, "3 pages for each listing")
    }

    func testTheRecordedProjectsListWithEveryKey() throws {
        try startFake()
        let result = try tracker().run(["list", "--format", "ndjson"])
        XCTAssertEqual(result.lines.count, 16)
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(
            Set(first.keys),
            [
                "id", "name", "category", "complete", "kickoff", "due", "status", "lead", "team", "clients", "notes",
                "createdTime", "fields",
            ])
        XCTAssertEqual(first["name"] as? String, "CMCA brand identity")
        // The template's other fields, as Airtable returned them: images as their objects, tasks as record ids.
        let own = try result.lines.map { line in
            try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["fields"] as? [String: Any]
            )
        }
        XCTAssertEqual(Set(own.flatMap(\.keys)), ["Project images", "Tasks"])
        XCTAssertNotNil((own[0]["Project images"] as? [[String: Any]])?.first?["url"] as? String)
        XCTAssertTrue(own.compactMap { $0["Tasks"] as? [String] }.joined().allSatisfy { $0.hasPrefix("rec") })
        XCTAssertEqual(first["status"] as? String, "overdue")
    }

    func testAddThenShowByIDAndByName() throws {
        try startFake()
        let lead = "katherineduh+collab10@demo.htable.com"
        let added = try tracker().run(
            [
                "add", "--name", "Spring campaign", "--due", "2026-12-01", "--kickoff", "2026-11-02", "--category",
                "Brand identity",
                "--lead", lead, "--team", "katherineduh+collab35@demo.htable.com", "--notes-file", "-", "--client",
                "Client 1",
            ], stdin: "Notes from stdin\nsecond line")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stderr, "")
        let id = added.stdout.trimmingCharacters(in: .newlines)
        XCTAssertTrue(id.hasPrefix("rec") && id.count == 17 && added.stdout == id + "\n", added.stdout)

        let shown = try tracker().run(["show", id, "--json"])
        let project = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(project["name"] as? String, "Spring campaign")
        XCTAssertEqual(project["due"] as? String, "2026-12-01")
        XCTAssertEqual(project["kickoff"] as? String, "2026-11-02")
        XCTAssertEqual((project["lead"] as? [String: Any])?["name"] as? String, "Gal Samari")
        XCTAssertEqual((project["team"] as? [[String: Any]])?.first?["name"] as? String, "Sam Epps")
        XCTAssertEqual(project["notes"] as? String, "Notes from stdin\nsecond line")
        let client = fake.records(inTable: "Clients").first {
            ($0["fields"] as? [String: Any])?["Name"] as? String == "Client 1"
        }
        XCTAssertEqual(project["clients"] as? [String], [try XCTUnwrap(client?["id"] as? String)])

        let human = try tracker().run(["show", "Spring campaign"])
        XCTAssertEqual(human.status, 0)
        XCTAssertTrue(human.stdout.hasPrefix("Spring campaign\n  ID        \(id)\n"), human.stdout)
        XCTAssertTrue(human.stdout.contains("  Lead      Gal Samari <\(lead)>"))
        XCTAssertTrue(human.stdout.contains("  Clients   Client 1\n"), human.stdout)
        // The base's own fields follow tracker's, in the table's order (the template's images, empty here); then the
        // project's tasks (none), which are not repeated as a field.
        XCTAssertTrue(
            human.stdout.hasSuffix(
                "  Notes     Notes from stdin\n            second line\n  Project images\n            —\n\nTasks  none\n"
            ),
            human.stdout)
        XCTAssertEqual(fake.records.count, 17)
    }

    func testAddQuietJSONDryRunAndIfAbsent() throws {
        try startFake()
        XCTAssertEqual(try tracker().run(["add", "-q", "--name", "Quiet", "--due", "2026-12-01"]).stdout, "")
        let json = try tracker().run(["add", "--json", "--name", "Loud", "--due", "2026-12-01", "--complete"])
        XCTAssertTrue(
            json.stdout.hasPrefix("{\"id\":\"rec") && json.stdout.contains("\"status\":\"done\""), json.stdout)
        let dry = try tracker().run(["add", "--dry-run", "--name", "Dry", "--due", "2026-12-01"])
        XCTAssertEqual(dry.stdout, #"{"fields":{"Name":"Dry","Due date":"2026-12-01"}}"# + "\n")
        let first = try tracker().run(["add", "--if-absent", "--name", "Weekly review", "--due", "2026-11-27"])
        let second = try tracker().run(["add", "--if-absent", "--name", "Weekly review", "--due", "2026-11-27"])
        XCTAssertTrue(first.stdout.hasPrefix("rec"), "an id, so the two can only be equal by being the same id")
        XCTAssertEqual(first.stdout, second.stdout)
        XCTAssertEqual(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Weekly review" }.count, 1)
        XCTAssertEqual(fake.records.count, 16 + 3)
        // "Exactly this name": another case is another project.
        let shouted = try tracker().run(["add", "--if-absent", "--name", "WEEKLY REVIEW", "--due", "2026-11-27"])
        XCTAssertEqual(shouted.status, 0, shouted.stderr)
        XCTAssertNotEqual(shouted.stdout, first.stdout)
        XCTAssertEqual(fake.records.count, 16 + 4)
    }

    func testConcurrentIfAbsentRunsLeaveOneProject() throws {
        try startFake()
        let shared = tracker()
        let runs = try (0..<4).map { _ in
            try shared.start(["add", "--if-absent", "--name", "Daily digest", "--due", "2026-12-01"])
        }
        var ids: Set<String> = []
        for (process, out, _) in runs {
            ids.insert(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        XCTAssertEqual(ids.count, 1, "\(ids)")
        XCTAssertEqual(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Daily digest" }.count, 1)
    }

    // MARK: - Exit codes

    func testUsageErrorsExit64BeforeAnyRequest() throws {
        try startFake()
        for arguments in [
            ["add", "--name", "", "--due", "2026-12-01"], ["add", "--name", "X", "--due", "2026-02-30"], ["lst"],
            ["list", "--bogus"], ["show"],
        ] {
            let result = try tracker().run(arguments)
            assertFailure(result, status: 64, "")
            XCTAssertTrue(result.stderr.hasSuffix("for usage.\n"), result.stderr)
        }
        let bad = try tracker().run(["add", "--name", "X", "--due", "2026-02-30"])
        XCTAssertEqual(
            bad.stderr,
            "tracker: --due '2026-02-30' is not a real date\nRun 'tracker help add' for usage.\n")
        XCTAssertTrue(fake.log.isEmpty)
    }

    func testRejectedDataExits65WithAirtablesMessage() throws {
        try startFake()
        let result = try tracker().run(["add", "--name", "X", "--due", "2026-12-01", "--lead", "nobody@example.com"])
        assertFailure(
            result, status: 65,
            "Airtable rejected the request (HTTP 422 INVALID_VALUE_FOR_COLUMN: Field \"Project lead\" cannot accept the provided value)"
        )
        XCTAssertEqual(fake.records.count, 16)
    }

    func testUnknownIDOrNameExits66() throws {
        try startFake()
        assertFailure(
            try tracker().run(["show", "recAAAAAAAAAAAAAA"]), status: 66,
            "no project has id or name \"recAAAAAAAAAAAAAA\"")
        assertFailure(
            try tracker().run(["show", "No such project"]), status: 66, "no project is named \"No such project\"")
        assertFailure(
            try tracker().run(["add", "--name", "X", "--due", "2026-12-01", "--notes-file", "/nonexistent/notes"]),
            status: 66, "--notes-file /nonexistent/notes does not exist")
    }

    func testBadTokenOrBaseExits77() throws {
        try startFake()
        let wrongToken = try tracker(["AIRTABLE_TOKEN": "patWRONGwrong0000.0123"]).run(["list"])
        assertFailure(
            wrongToken, status: 77,
            "Airtable did not accept the token (HTTP 401 AUTHENTICATION_REQUIRED: Authentication required)")
        XCTAssertFalse(wrongToken.stderr.contains("patWRONGwrong0000.0123"))
        let wrongBase = try tracker(["AIRTABLE_BASE_ID": "appWRONGwrong0000"]).run(["show", "recAAAAAAAAAAAAAA"])
        assertFailure(
            wrongBase, status: 77,
            "Airtable denied access to table \"Design projects\" of base appWRONGwrong0000 (HTTP 403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"
        )
    }

    func testConfigurationProblemsExit78() throws {
        try startFake()
        let none = bareTracker()
        assertFailure(try none.run(["list"]), status: 78, "no secrets found")

        let directory = none.runtimeDirectory
        try #"{"token": "patABCDEFGHIJKLMN.1", "baseId": "appABCDEFGHIJKLMN", "tabel": "x"}"#.write(
            toFile: directory + "/Secrets.json", atomically: false, encoding: .utf8)
        assertFailure(try none.run(["list"], directory: directory), status: 78, "unknown key \"tabel\"")
        try "{ not json".write(toFile: directory + "/Secrets.json", atomically: false, encoding: .utf8)
        assertFailure(try none.run(["list"], directory: directory), status: 78, "is not a JSON object of settings")
        let http = try tracker(["AIRTABLE_ENDPOINT_URL": "http://example.com"]).run(["list"])
        assertFailure(http, status: 78, "refusing plain http:// endpoint example.com")
    }

    func testASecretsFileOthersCanReadWorksWithAWarning() throws {
        try startFake()
        let process = try configuredTracker()
        let path = process.runtimeDirectory + "/Secrets.json"
        chmod(path, 0o644)
        let result = try process.run(["list"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.lines.count, 16)
        XCTAssertEqual(
            result.stderr, "tracker: warning: \(path) is readable by other users; run: chmod 600 '\(path)'\n")
        chmod(path, 0o600)
        XCTAssertEqual(try process.run(["list"]).stderr, "")
    }

    func testTheTokenNeverAppearsAnywhere() throws {
        try startFake()
        let token = fake.options.token
        for arguments in [
            ["--verbose", "list"], ["--verbose", "show", "recAAAAAAAAAAAAAA"],
            ["--verbose", "add", "--name", "T", "--due", "2026-12-01"],
        ] {
            let result = try tracker().run(arguments)
            XCTAssertFalse(
                result.stdout.contains(token) || result.stderr.contains(token), arguments.joined(separator: " "))
            XCTAssertTrue(
                result.stderr.contains("tracker: GET ") || result.stderr.contains("tracker: POST "), result.stderr)
        }
        XCTAssertTrue(fake.log.allSatisfy { !$0.query.contains(token) && !$0.path.contains(token) })
    }

    func testAClosedPipeEndsQuietlyWithSuccess() throws {
        // 2,000 rows are more than a pipe's buffer holds, so tracker is still writing when the reader goes away.
        try startFake(records: FakeAirtable.generatedProjects(count: 2000))
        // The reader takes one line and closes the pipe, as `tracker list | head -1` does; no shell in between, so
        // tracker's own exit status is what is checked.
        let process = Process()
        process.executableURL = TrackerProcess.binary
        process.arguments = ["list"]
        let runner = tracker()
        process.environment = runner.environment
        process.currentDirectoryURL = URL(fileURLWithPath: runner.runtimeDirectory)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first += chunk
        }
        try out.fileHandleForReading.close()
        process.waitUntilExit()
        XCTAssertTrue(String(decoding: first, as: UTF8.self).hasPrefix("rec00000000000001\tProject 00001\t"))
        XCTAssertEqual(process.terminationReason, .exit, "not killed by SIGPIPE")
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "")
        XCTAssertLessThan(fake.recordLog.count, 20, "tracker stopped reading pages once nobody was listening")
    }

    func testHelpAndVersion() throws {
        let process = bareTracker()
        let version = try process.run(["--version"])
        XCTAssertNotNil(
            version.stdout.range(
                of: #"^tracker [0-9]+\.[0-9]+\.[0-9]+ \(built from a checkout, Swift 6\."#, options: .regularExpression),
            version.stdout)
        XCTAssertTrue(version.stdout.hasSuffix(", Linux x86_64)\n") || version.stdout.hasSuffix(", Linux arm64)\n"))
        let list = try process.run(["help", "list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.hasPrefix("List projects: what is due, overdue and done.\n\nUSAGE\n  tracker list "))
        for flag in ["--overdue", "--due-before", "--format", "--limit", "--secrets", "--verbose"] {
            XCTAssertTrue(list.stdout.contains("\n  \(flag) "), "help list lacks \(flag)")
        }
        XCTAssertTrue(list.stdout.contains("\nEXAMPLES\n  $ tracker list\n"))
        for command in ["list", "add", "show"] {
            XCTAssertEqual(try process.run(["help", command]).stdout, try process.run([command, "--help"]).stdout)
        }
        XCTAssertEqual(list.stderr, "")
    }

    func testShowOnANarrowTerminalWrapsValuesInTheValueColumnBetweenItems() throws {
        try startFake()
        let process = tracker()
        let (status, screen) = try onATerminal(["show", "Coffee packaging", "--color", "never"], process, columns: 60)
        XCTAssertEqual(status, 0, screen)
        let lines = screen.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
        let team = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  Team      ") }, screen)
        // Each member on the line they start on, never cut inside a name or an address; the rest under the value.
        var members: [String] = [String(lines[team].dropFirst(12))]
        for line in lines[(team + 1)...] {
            guard line.hasPrefix("            ") else { break }
            members.append(String(line.dropFirst(12)))
        }
        XCTAssertGreaterThan(members.count, 1, screen)
        for member in members {
            XCTAssertLessThanOrEqual(member.count, 60 - 12, member)
            XCTAssertEqual(member.filter { $0 == "<" }.count, member.filter { $0 == ">" }.count, member)
        }
        for line in lines where !line.contains("https://") { XCTAssertLessThanOrEqual(line.count, 60, line) }
        // A label longer than the label column stands above its value, which starts in the value column.
        if let images = lines.firstIndex(of: "  Project images") {
            XCTAssertTrue(lines[images + 1].hasPrefix("            "), screen)
        }
    }

    func testSeveralPartialMatchesAre64ListingEveryOne() throws {
        try startFake()
        let holding = fake.records.filter {
            (($0["fields"] as? [String: Any])?["Name"] as? String)?.lowercased().contains("brand identity") == true
        }
        XCTAssertGreaterThan(holding.count, 3, "more than the three suggestions a miss gets")
        let result = try tracker().run(["show", "brand identity"])
        assertFailure(result, status: 64, "hold every word of it")
        for record in holding {
            let id = try XCTUnwrap(record["id"] as? String)
            XCTAssertTrue(result.stderr.contains(id), "\(id) in \(result.stderr)")
        }
        XCTAssertTrue(result.stderr.contains("(due "), result.stderr)
        // One partial match is still shown.
        XCTAssertEqual(try tracker().run(["show", "coffee"]).status, 0)
    }
}
