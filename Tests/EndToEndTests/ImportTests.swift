import FakeAirtable
import Foundation
import XCTest

/// `tracker import` through the built binary: round trips, checks, the plan, and exactly once whatever happens.
final class ImportTests: FakeAirtableTestCase {
    /// `count` rows of new projects as CSV, with the lead given by email.
    static func csv(_ count: Int, from first: Int = 1) -> String {
        "name,due,category,lead\n"
            + (first..<first + count).map { index in
                "Imported \(String(format: "%04d", index)),2027-01-\(String(format: "%02d", index % 28 + 1)),Brand identity,katherineduh+collab10@demo.htable.com\n"
            }.joined()
    }

    private func names() -> [String] {
        fake.records.compactMap { ($0["fields"] as? [String: Any])?["Name"] as? String }
    }

    private func writes() -> [FakeAirtable.LogEntry] { fake.recordLog.filter { $0.method != "GET" } }

    private func write(_ text: String, to name: String, in process: TrackerProcess) throws {
        try text.write(toFile: process.runtimeDirectory + "/" + name, atomically: false, encoding: .utf8)
    }

    // MARK: - Round trips

    func testWhatListWritesImportsBackAndChangesNothing() throws {
        var records = FakeAirtable.recordedProjects
        records.append([
            "id": "recNOTESnotes0001",
            "fields": [
                "Name": "With notes", "Due date": "2030-01-01", "Notes": "two\nlines\tand a tab", "Complete": true,
            ],
        ])
        try startFake(records: records)
        let run = tracker()
        for format in ["ndjson", "json", "csv"] {
            let listed = try run.run(["list", "--format", format])
            try write(listed.stdout, to: "all.\(format)", in: run)
            let imported = try run.run(["import", "--key", "name", "all.\(format)"])
            XCTAssertEqual(imported.status, 0, "\(format): \(imported.stderr)")
            XCTAssertEqual(imported.stdout, "created 0, updated 0, unchanged 17\n", format)
        }
        XCTAssertTrue(writes().isEmpty, "a round trip writes nothing")
    }

    func testAnNDJSONRoundTripIntoAnEmptyTableIsLossless() throws {
        try startFake()
        let listed = try tracker().run(["list", "--format", "ndjson"]).stdout
        let original = fake.records
        fake.stop()
        try startFake(records: [])
        let run = tracker()
        try write(listed, to: "all.ndjson", in: run)
        let imported = try run.run(["import", "all.ndjson"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "created 16, updated 0, unchanged 0\n")
        // Every field tracker knows came back (lead and team by email, clients, notes, complete), and the base's own
        // writable fields from "fields" (the template's tasks); attachments are what list shows, not an input.
        for record in original {
            let before = record["fields"] as! [String: Any]
            let after = try XCTUnwrap(
                fake.records.first {
                    ($0["fields"] as? [String: Any])?["Name"] as? String == before["Name"] as? String
                }?[
                    "fields"] as? [String: Any])
            for field in ["Due date", "Kickoff date", "Category", "Notes", "Client", "Tasks"] {
                XCTAssertEqual("\(before[field] ?? "nil")", "\(after[field] ?? "nil")", "\(before["Name"]!): \(field)")
            }
            XCTAssertEqual(before["Complete"] as? Bool ?? false, after["Complete"] as? Bool ?? false)
            XCTAssertEqual(
                (before["Project lead"] as? [String: Any])?["email"] as? String,
                (after["Project lead"] as? [String: Any])?["email"] as? String)
            XCTAssertEqual(
                (before["Project team"] as? [[String: Any]])?.compactMap { $0["email"] as? String },
                (after["Project team"] as? [[String: Any]])?.compactMap { $0["email"] as? String })
        }
    }

    func testAHandMadeCSVWithQuotesListsAndDateWords() throws {
        try startFake()
        let run = tracker()
        try write(
            """
            Name,Due,Category,Lead,Team,Client,Notes,Complete
            "Spring, ""big"" campaign",+2w,brand IDENTITY,gal samari,katherineduh+collab35@demo.htable.com; Skyler Xu,Client 1;client 2,"two
            lines",yes

            """, to: "rows.csv", in: run)
        let result = try run.run(["import", "rows.csv", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let row = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(row["line"] as? Int, 2)
        XCTAssertEqual(row["action"] as? String, "created")
        let id = try XCTUnwrap(row["id"] as? String)
        let fields = try XCTUnwrap(fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any])
        XCTAssertEqual(fields["Name"] as? String, #"Spring, "big" campaign"#)
        XCTAssertEqual(fields["Category"] as? String, "Brand identity")
        XCTAssertEqual(fields["Notes"] as? String, "two\nlines")
        XCTAssertEqual(fields["Complete"] as? Bool, true)
        XCTAssertEqual((fields["Project team"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual((fields["Client"] as? [String])?.count, 2)
        XCTAssertFalse(writes().contains { $0.body.contains("typecast") })
    }

    // MARK: - Every row checked first

    func testInvalidRowsWriteNothingAndAreEachNamedByLine() throws {
        try startFake()
        let run = tracker()
        try write(
            """
            name,due,category,client
            Good one,2027-01-01,,
            Bad date,2026-13-01,,
            Bad category,2027-01-01,Nope cat,
            Bad client,2027-01-01,,Acme Crop
            Good one,2027-02-01,,
            ,2027-01-01,,
            No due,,,

            """, to: "rows.csv", in: run)
        let result = try run.run(["import", "rows.csv"])
        assertFailure(result, status: 65, "tracker: 6 rows are invalid, so nothing was written")
        let lines = result.stderr.split(separator: "\n").dropFirst().map(String.init)
        XCTAssertEqual(
            lines,
            [
                #"line 3: due "2026-13-01" is not a real date"#,
                #"line 4: unknown category "Nope cat"; the choices are "Brand identity", "Industrial design", "Healthcare design", "Technology design"."#,
                #"line 5: unknown client "Acme Crop" (tracker never creates one)."#,
                "line 6: the same name as line 2", "line 7: name is empty",
                "line 8: no due; a new project needs a name and a due date",
            ])
        XCTAssertTrue(writes().isEmpty)
        let unknown = try run.run(["import", "-"], stdin: "name,due,priority\nX,2027-01-01,high\n")
        assertFailure(unknown, status: 65, "1 row is invalid")
        XCTAssertTrue(
            unknown.stderr.contains(#"line 1: unknown column "priority"; columns are name due"#), unknown.stderr)
    }

    func testAFileThatIsNotUTF8TextSaysSo() throws {
        try startFake()
        let run = tracker()
        try Data([0x6E, 0x61, 0x6D, 0x65, 0x0A, 0xFF, 0xFE, 0x0A]).write(
            to: URL(fileURLWithPath: run.runtimeDirectory + "/latin.csv"))
        let result = try run.run(["import", "latin.csv"])
        assertFailure(result, status: 64, "latin.csv is not UTF-8 text; import reads UTF-8 CSV, NDJSON or JSON")
        XCTAssertTrue(fake.log.isEmpty)
    }

    func testAtMostTwentyBadRowsAreListedThenACount() throws {
        try startFake()
        let rows = (1...25).map { "Row \($0),not a date\n" }.joined()
        let result = try tracker().run(["import", "-"], stdin: "name,due\n" + rows)
        assertFailure(result, status: 65, "25 rows are invalid, so nothing was written")
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + 20 + 1)
        XCTAssertEqual(lines.last, "… and 5 more")
    }

    func testAKeyMatchingSeveralProjectsIsAnErrorForThatRow() throws {
        var records = FakeAirtable.recordedProjects
        records.append(["id": "recTWINtwin000001", "fields": ["Name": "Twin", "Due date": "2030-01-01"]])
        records.append(["id": "recTWINtwin000002", "fields": ["Name": "Twin", "Due date": "2030-02-01"]])
        try startFake(records: records)
        let row = "name,due\nTwin,2030-03-01\n"
        let result = try tracker().run(["import", "-", "--format", "csv"], stdin: row)
        assertFailure(result, status: 65, "1 row is invalid")
        XCTAssertTrue(
            result.stderr.contains(
                "line 2: its key matches 2 projects (recTWINtwin000001, recTWINtwin000002); a key must match at most one"
            ),
            result.stderr)
        // With name and due as the key, the row matches neither and is new.
        let keyed = try tracker().run(["import", "-", "--key", "name,due"], stdin: row)
        XCTAssertEqual(keyed.stdout, "created 1, updated 0, unchanged 0\n", keyed.stderr)
    }

    // MARK: - The plan

    func testThePlanCreatesUpdatesAndLeavesAloneAndADryRunWritesNothing() throws {
        try startFake()
        let rows = """
            name,due,category
            CMCA brand identity,2020-11-07,Brand identity
            Premier utility bike,2031-01-01,Industrial design
            Brand new,2031-02-01,Technology design

            """
        let dry = try tracker().run(["import", "-", "--dry-run"], stdin: rows)
        XCTAssertEqual(dry.stdout, "would create 1, update 1, unchanged 1\n")
        XCTAssertTrue(writes().isEmpty)
        let result = try tracker().run(["import", "-", "--json"], stdin: rows)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 3)
        XCTAssertTrue(
            result.lines.contains(#"{"line":2,"id":"rec3g0Xxmw2rw3scs","action":"unchanged"}"#), result.stdout)
        XCTAssertTrue(result.lines.contains(#"{"line":3,"id":"rec6DyWEAw6ZOWrb4","action":"updated"}"#), result.stdout)
        XCTAssertEqual(writes().count, 2, "one upsert for the new project, one update")
        let update = try XCTUnwrap(writes().first { !$0.body.contains("performUpsert") })
        XCTAssertEqual(update.body, #"{"records":[{"id":"rec6DyWEAw6ZOWrb4","fields":{"Due date":"2031-01-01"}}]}"#)
        XCTAssertEqual(try tracker().run(["import", "-", "-q"], stdin: rows).stdout, "")
    }

    // MARK: - Exactly once

    func testAResetEverySeventhRequestStillImports250RowsOnce() throws {
        try startFake(records: [])
        for number in stride(from: 7, through: 120, by: 7) { fake.inject(.reset, onRequest: number) }
        let result = try tracker().run(["import", "-", "--format", "csv"], stdin: Self.csv(250))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "created 250, updated 0, unchanged 0\n")
        XCTAssertEqual(names().count, 250)
        XCTAssertEqual(Set(names()).count, 250)
    }

    func testServerErrorsAndA429StormEndWithEveryRowInOnce() throws {
        try startFake(records: [], options: .lockingOut(for: 1))
        fake.inject(.status(500, type: nil), onRequest: 3)
        fake.inject(.status(503, type: "RETRIABLE_ERROR", message: "Server encountered an error"), onRequest: 5)
        let limited = FakeAirtable.Fault.rateLimited(retryAfter: "1")
        for number in 7...10 { fake.inject(limited, onRequest: number) }
        // A faster pace than Airtable's, so the slower pace after each 429 costs this test seconds, not tens.
        let result = try configuredTracker(#""requestsPerSecond": 50"#).run(
            ["import", "-", "--format", "csv"], stdin: Self.csv(80))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "created 80, updated 0, unchanged 0\n")
        XCTAssertEqual(names().count, 80)
        XCTAssertEqual(Set(names()).count, 80)
        XCTAssertEqual(fake.recordLog.filter { $0.status == 429 }.count, 4)
    }

    func testALostAnswerToABatchNeverAddsItTwice() throws {
        try startFake(records: [])
        // A lookup, then upserts: the third batch is applied and its answer lost.
        fake.inject(.applyThenDrop, onRequest: 4)
        let result = try tracker().run(["import", "-", "--format", "csv"], stdin: Self.csv(50))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "created 50, updated 0, unchanged 0\n")
        XCTAssertEqual(names().count, 50)
        XCTAssertEqual(Set(names()).count, 50)
        XCTAssertEqual(writes().count, 6, "five batches, the lost one sent again")
    }

    /// An import of 300 rows started against a fake that answers 20 requests a second, once `writes` have landed.
    private func importUnderWay(writes count: Int) throws -> (TrackerProcess, Process, Pipe, Pipe) {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 20
        try startFake(records: [], options: options)
        let run = try configuredTracker(#""requestsPerSecond": 10"#)
        try write(Self.csv(300), to: "rows.csv", in: run)
        let (process, out, err) = try run.start(["import", "rows.csv"])
        // A sign that writing is under way, not a guess at how long it takes.
        let deadline = Date().addingTimeInterval(30)
        while writes().count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return (run, process, out, err)
    }

    func testKilledHalfwayThenRunAgainEveryRowIsInOnce() throws {
        let (run, process, _, _) = try importUnderWay(writes: 8)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        // A request already on its way may still land; wait until the fake has been quiet for a moment.
        var seen = fake.recordLog.count
        repeat {
            seen = fake.recordLog.count
            Thread.sleep(forTimeInterval: 0.3)
        } while fake.recordLog.count != seen
        let partial = names().count
        XCTAssertGreaterThan(partial, 0)
        XCTAssertLessThan(partial, 300)
        let rerun = try run.run(["import", "rows.csv"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(rerun.stdout, "created \(300 - partial), updated 0, unchanged \(partial)\n")
        XCTAssertEqual(names().count, 300)
        XCTAssertEqual(Set(names()), Set((1...300).map { "Imported \(String(format: "%04d", $0))" }))
    }

    func testCtrlCStopsBetweenRequestsAndSaysHowToResume() throws {
        let (run, process, out, err) = try importUnderWay(writes: 5)
        process.interrupt()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 130, stderr)
        XCTAssertEqual(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "")
        let written = names().count
        XCTAssertTrue(stderr.contains("tracker: interrupted after \(written) of 300 rows were written"), stderr)
        XCTAssertTrue(stderr.contains("Run the same command again to finish"), stderr)
        XCTAssertEqual(written % 10, 0, "it stopped between requests, not in the middle of one")
        let rerun = try run.run(["import", "rows.csv"])
        XCTAssertEqual(rerun.stdout, "created \(300 - written), updated 0, unchanged \(written)\n", rerun.stderr)
        XCTAssertEqual(Set(names()).count, 300)
        XCTAssertEqual(names().count, 300)
    }

    func testUnderTheRateLimitWithItsLockoutNothingIsRefused() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.lockoutSeconds = 30
        try startFake(records: FakeAirtable.generatedProjects(count: 40), options: options)
        let rows = Self.csv(60) + "Project 00001,2031-01-01,Healthcare design,katherineduh+collab10@demo.htable.com\n"
        let result = try tracker().run(["import", "-", "--format", "csv"], stdin: rows)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "created 60, updated 1, unchanged 0\n")
        XCTAssertFalse(fake.recordLog.contains { $0.status == 429 }, "\(fake.recordLog.map(\.status))")
    }
}
