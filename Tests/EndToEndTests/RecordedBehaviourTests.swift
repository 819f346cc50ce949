import FakeAirtable
import LoopbackTLS
import Foundation
import XCTest

/// The built binary against the fake answering as recorded traffic from api.airtable.com shows (docs/airtable.md
/// section 12): compressed bodies, the recorded error shapes, other tables' records by id, renamed fields, a 414 for
/// long URLs, and a base shared by two machines.
final class RecordedBehaviourTests: FakeAirtableTestCase {
    // MARK: - Compression

    func testEveryCodingIsReadAndNoAnswerIsMistakenForACutOffOne() throws {
        for coding in HTTPCompression.allCases {
            var options = FakeAirtable.Options()
            options.compression = coding
            try startFake(records: FakeAirtable.generatedProjects(count: 1000), options: options)
            let result = try tracker().run(["list", "--format", "ndjson"])
            XCTAssertEqual(result.status, 0, "\(coding): \(result.stderr)")
            XCTAssertEqual(result.stderr, "")
            XCTAssertEqual(Set(result.lines).count, 1000, "\(coding)")
            XCTAssertEqual(fake.recordLog.count, 10, "\(coding): one request a page, no retries")
            XCTAssertTrue(fake.recordLog.allSatisfy { $0.encoding == coding.rawValue }, "\(coding)")
            fake.stop()
        }
    }

    func testACutOffCompressedAnswerIsStillDetectedAndRetried() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 250))
        fake.inject(.truncatedBody, onRequest: 2)
        let result = try tracker().run(["list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Set(result.lines).count, 250)
        XCTAssertEqual(fake.recordLog.count, 4, "the cut-off page was asked for again")
        XCTAssertEqual(fake.recordLog[1].encoding, "gzip")
    }

    // MARK: - Error bodies as recorded

    func testTheMonthlyQuotaIsReportedAtOnceAndDoesNotHoldBackOtherProcesses() throws {
        try startFake()
        fake.inject(
            .status(429, type: "PUBLIC_API_BILLING_LIMIT_EXCEEDED", message: "API billing plan limit exceeded."),
            onRequest: 1)
        let shared = tracker()
        let result = try shared.run(["list"])
        assertFailure(result, status: 69, "the workspace has used up its monthly Airtable API calls")
        XCTAssertTrue(result.stderr.contains("PUBLIC_API_BILLING_LIMIT_EXCEEDED: API billing plan limit exceeded."))
        XCTAssertTrue(result.stderr.contains("Waiting will not help"), result.stderr)
        XCTAssertLessThan(result.seconds, 2)
        let next = try shared.run(["list"])
        XCTAssertEqual(next.status, 0)
        XCTAssertLessThan(next.seconds, 2, "the quota put no hold on the machine's pace")
    }

    func testRecordedErrorShapesGiveAirtablesTypeOrAClearSentence() throws {
        let cases: [(FakeAirtable.Fault, Int32, String)] = [
            (.raw(404, body: #"{"error":"NOT_FOUND"}"#), 66, "Airtable could not find it (HTTP 404 NOT_FOUND)"),
            (
                .raw(404, body: #"{"error":{"type":"NOT_FOUND"}}"#), 66,
                "Airtable could not find it (HTTP 404 NOT_FOUND)"
            ),
            (
                .raw(414, body: "<html><head><title>414 Request-URI Too Large</title></head></html>"), 1,
                "Airtable refused the request because its URL is too long (414 URI Too Long)"
            ),
            (
                .raw(
                    422,
                    body: #"{"error":{"type":"INVALID_OFFSET_VALUE","message":"The value of offset itrZ is invalid"}}"#),
                65, "Airtable rejected the request (HTTP 422 INVALID_OFFSET_VALUE: The value of offset itrZ is invalid)"
            ),
        ]
        for (fault, status, message) in cases {
            try startFake()
            fake.inject(fault, onRequest: 1)
            let result = try tracker().run(["list"])
            assertFailure(result, status: status, message)
            XCTAssertFalse(result.stderr.contains("HTTP 414"))
            fake.stop()
        }
    }

    // MARK: - Staying inside the table

    func testARecordOfAnotherTableIsNotAProject() throws {
        try startFake()
        let client = try XCTUnwrap(fake.records(inTable: "Clients").first?["id"] as? String)
        let result = try tracker().run(["show", client])
        assertFailure(result, status: 66, "no project has id or name \"\(client)\"")
        XCTAssertFalse(fake.recordLog.contains { $0.path.hasSuffix("/" + client) }, "never a GET of the record by id")
        let project = try tracker().run(["show", "rec3g0Xxmw2rw3scs", "--json"])
        XCTAssertEqual(project.status, 0, project.stderr)
        XCTAssertTrue(project.stdout.hasPrefix(#"{"id":"rec3g0Xxmw2rw3scs","name":"CMCA brand identity""#))
    }

    func testANameThatLooksLikeAnIDStillNamesItsProject() throws {
        var records = FakeAirtable.recordedProjects
        records.append(["id": "recKEEPkeep000001", "fields": ["Name": "recordkeeping2024", "Due date": "2026-12-01"]])
        try startFake(records: records)
        let result = try tracker().run(["show", "recordkeeping2024", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix(#"{"id":"recKEEPkeep000001""#), result.stdout)
        let caseless = try tracker().run(["show", "cmca BRAND identity", "--json"])
        XCTAssertTrue(caseless.stdout.hasPrefix(#"{"id":"rec3g0Xxmw2rw3scs""#), caseless.stderr)
    }

    func testAListingWhoseURLWouldReach16000CharactersGoesAsPOST() throws {
        try startFake()
        let long = String(repeating: "x", count: 16_000)
        let result = try tracker().run(["list", "--search", long])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fake.recordLog.map(\.method), ["POST"])
        XCTAssertTrue(fake.recordLog[0].path.hasSuffix("/listRecords"))
        let short = try tracker().run(["list", "--search", "logo"])
        XCTAssertEqual(short.status, 0)
        XCTAssertEqual(fake.recordLog.last?.method, "GET")
    }

    // MARK: - Renamed fields and a wrong table

    func testARenamedFieldIsAbsentUntilMappedAndWithoutTheSchemaA78NamingTheFix() throws {
        var options = FakeAirtable.Options()
        options.renamedFields = ["Due date": "Deadline"]
        try startFake(options: options)
        // With the schema readable, a template field the table lacks is simply absent: listing works, its column is
        // empty, and what needs it is refused naming it.
        let unmapped = try configuredTracker()
        let listed = try unmapped.run(["list", "--format", "ndjson"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.lines.allSatisfy { $0.contains(#""due":null"#) }, listed.stdout)
        assertFailure(try unmapped.run(["list", "--overdue"]), status: 64, "--overdue needs the due field")
        assertFailure(
            try unmapped.run(["add", "--name", "X", "--due", "friday"]), status: 64, "--due needs the due field")
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 0)

        let doctor = try unmapped.run(["doctor"])
        XCTAssertEqual(doctor.status, 0, doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains(#"the base has no due (no "Due date")"#), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("Deadline (date)"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains(#""fields": {"due": "Deadline"}"#), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains(#""fields": {"due": null}"#), doctor.stdout)

        let mapped = try configuredTracker(#""fields": {"due": "Deadline"}"#)
        let overdue = try mapped.run(["list", "--overdue", "--sort", "due", "--format", "ndjson"])
        XCTAssertEqual(overdue.status, 0, overdue.stderr)
        XCTAssertFalse(overdue.lines.isEmpty)
        XCTAssertTrue(overdue.lines.allSatisfy { $0.contains(#""due":"20"#) && $0.contains(#""status":"overdue""#) })
        let added = try mapped.run(["add", "--name", "Mapped", "--due", "2026-12-01"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let stored = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Mapped" }
        XCTAssertEqual((stored?["fields"] as? [String: Any])?["Deadline"] as? String, "2026-12-01")
        XCTAssertEqual(try mapped.run(["doctor"]).status, 0)
    }

    func testWithoutSchemaAccessAirtablesUnknownFieldIs78NamingTheFieldAndTheFix() throws {
        var options = FakeAirtable.Options()
        options.renamedFields = ["Due date": "Deadline"]
        options.grantsSchemaAccess = false
        try startFake(options: options)
        let unmapped = try configuredTracker()
        for arguments in [["list", "--overdue"], ["add", "--name", "X", "--due", "friday"]] {
            let result = try unmapped.run(arguments)
            assertFailure(
                result, status: 78, "the table \"Design projects\" has no field \"Due date\" (tracker's \"due\")")
            XCTAssertTrue(result.stderr.contains(#""fields": {"due": "<its name>"}"#), result.stderr)
            XCTAssertTrue(result.stderr.contains(#""due": null"#), result.stderr)
            XCTAssertFalse(result.stderr.contains("422"))
        }
        XCTAssertEqual(fake.records.count, 16, "nothing was created")
        // Saying the base has none works without the schema too.
        let none = try configuredTracker(#""fields": {"due": null}"#)
        let listed = try none.run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.lines.count, 16)
        assertFailure(try none.run(["list", "--overdue"]), status: 64, "--overdue needs the due field")
    }

    func testAWrongTableNameSaysTheNameMayBeWrong() throws {
        try startFake()
        let result = try tracker(["AIRTABLE_TABLE": "Design projekts"]).run(["list"])
        assertFailure(result, status: 77, "Airtable denied access to table \"Design projekts\" of base")
        XCTAssertTrue(result.stderr.contains("Check that the table is named \"Design projekts\" exactly"))
        XCTAssertTrue(result.stderr.contains("data.records:read"))
        let doctor = try tracker(["AIRTABLE_TABLE": "Design projekts"]).run(["doctor"])
        XCTAssertEqual(doctor.status, 77)
        XCTAssertTrue(doctor.stdout.contains(#"this base has the tables: "Design projects", "Clients", "Tasks""#))
    }

    // MARK: - Text from the base

    func testAHostileNameCannotControlTheTerminal() throws {
        // Due a year from today, so that the project is "open" on whatever day the suite runs.
        let due = localDay(365)
        var records = FakeAirtable.recordedProjects
        records.append([
            "id": "recEVILevil000001",
            "fields": [
                "Name": "Evil \u{1B}[2J\u{1B}]0;owned\u{07}", "Due date": due,
                "Notes": "line one\u{1B}[31m\nline two\u{202E}",
            ],
        ])
        try startFake(records: records)
        for arguments in [
            ["list"], ["list", "--format", "table", "--color", "never"], ["list", "--format", "csv"],
            ["show", "recEVILevil000001"],
        ] {
            let result = try tracker().run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(result.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(arguments)")
            XCTAssertFalse(result.stdout.contains("\u{202E}"))
        }
        let tsv = try tracker().run(["list"]).lines.first { $0.hasPrefix("recEVILevil000001") }
        XCTAssertEqual(tsv, "recEVILevil000001\tEvil ^[[2J^[]0;owned^G\t\(due)\topen\t\t")
        let shown = try tracker().run(["show", "recEVILevil000001"]).stdout
        XCTAssertTrue(shown.contains("  Notes     line one^[[31m\n            line two<U+202E>\n"), shown)
        let json = try tracker().run(["show", "recEVILevil000001", "--json"]).stdout
        XCTAssertTrue(json.contains(#""name":"Evil \u001b[2J\u001b]0;owned\u0007""#), "JSON stays exact: \(json)")
    }

    func testWideCharactersKeepTheTableAligned() throws {
        let records: [[String: Any]] = ["🚀 Launch", "👩‍💻 Dev portal", "Plain name", "日本 rebrand"].enumerated().map {
            ["id": "rec0000000000000\($0)", "fields": ["Name": $1, "Due date": "2030-01-0\($0 + 1)"]]
        }
        try startFake(records: records)
        let result = try tracker(["COLUMNS": "100"]).run(["list", "--format", "table", "--color", "never"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // The display column where the due date starts, measured with widths known independently of tracker.
        func column(of needle: String, in line: String) -> Int? {
            guard let range = line.range(of: needle) else { return nil }
            return line[..<range.lowerBound].reduce(0) { width, character in
                width + (["🚀", "👩‍💻", "日", "本"].contains(character) ? 2 : 1)
            }
        }
        let columns = result.lines.dropFirst().compactMap { column(of: "2030-01-0", in: $0) }
        XCTAssertEqual(columns.count, 4, result.stdout)
        XCTAssertEqual(Set(columns).count, 1, "due dates start in one column: \(columns)\n\(result.stdout)")
    }

    // MARK: - TLS

    func testAnUntrustedCertificateFailsAtOnceWithCurlsReason() throws {
        let server = try XCTUnwrap(try TLSServer.start(), "openssl is needed for this test")
        defer { server.stop() }
        let result = try bareTracker([
            "AIRTABLE_ENDPOINT_URL": "https://127.0.0.1:\(server.port)", "AIRTABLE_TOKEN": FakeAirtable.Options().token,
            "AIRTABLE_BASE_ID": "appFAKEbase000001", "AIRTABLE_TABLE": "Design projects",
        ]).run(["list"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(
            result.stderr.hasPrefix("tracker: cannot make a secure connection to 127.0.0.1: SSL certificate problem: "),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("update-ca-certificates"))
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 2)
        XCTAssertLessThan(result.seconds, 3, "not retried")
    }

    // MARK: - Pacing across machines

    func testTwoMachinesSharingABaseSlowDownAfterA429AndFinishTogether() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.lockoutSeconds = 30
        try startFake(records: FakeAirtable.generatedProjects(count: 1016), options: options)
        // Two runtime directories: two machines that cannot share a slot file.
        let machines = [tracker(), tracker()]
        let started = Date()
        let runs = try machines.map { try $0.start(["--verbose", "list"]) }
        var outputs: [(Int32, String, String)] = []
        for (process, out, err) in runs {
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            outputs.append((process.terminationStatus, stdout, stderr))
        }
        let seconds = Date().timeIntervalSince(started)
        for (status, stdout, stderr) in outputs {
            XCTAssertEqual(status, 0, stderr)
            XCTAssertEqual(Set(stdout.split(separator: "\n")).count, 1016)
            let limited = stderr.split(separator: "\n").filter { $0.contains(" 429 ") }.count
            XCTAssertLessThanOrEqual(limited, 2, stderr)
        }
        // The 429s came as recorded, without Retry-After, and locked the base for 30 s: waited out, not knocked on.
        let refusals = fake.log.filter { $0.status == 429 }
        XCTAssertFalse(refusals.isEmpty, "two machines at 5/s each must meet the limit")
        XCTAssertGreaterThan(seconds, 30, "the lockout was waited out")
        XCTAssertLessThan(seconds, 45)
    }

    func testIfAbsentWaitsForAnotherAddAtMostTheRetryBudget() throws {
        try startFake()
        // A first run whose lookup under the lock (its second: the first goes before the lock) Airtable answers slowly
        // holds the name for about 5 s.
        fake.inject(.delay(seconds: 5), onRequest: 2)
        let arguments = ["add", "--if-absent", "--name", "Weekly review", "--due", "2026-11-27"]
        // One machine (one runtime directory, where the locks live); a retry budget of 2 s for the second run.
        let machine = try configuredTracker(#""retryBudgetSeconds": 2"#)
        let (slow, slowOut, _) = try machine.start(arguments)
        // Its lookup under the lock has arrived (it holds the lock from before that lookup until after the create).
        for _ in 0..<100 where fake.recordRequestsReceived < 2 { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(fake.recordRequestsReceived, 2)
        let result = try machine.run(arguments)
        assertFailure(result, status: 75, "another tracker process has been adding \"Weekly review\" for 2s")
        XCTAssertLessThan(result.seconds, 4)
        XCTAssertEqual(
            fake.recordRequestsReceived, 3, "the second run's look before the lock, and none while it waited")
        slow.waitUntilExit()
        XCTAssertEqual(slow.terminationStatus, 0)
        let id = String(decoding: slowOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(id.hasPrefix("rec"), id)
        XCTAssertEqual(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Weekly review" }.count, 1)
    }
}
