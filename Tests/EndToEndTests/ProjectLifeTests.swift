import FakeAirtable
import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A project's whole life through the built binary: add, update, done, reopen, delete; naming; dates; checked values.
final class ProjectLifeTests: FakeAirtableTestCase {
    /// Today as tracker sees it (the machine's time zone), read once per test.
    private lazy var today: Date = Date()

    private func day(_ offset: Int) -> String { localDay(offset, from: today) }

    private func fields(_ id: String) -> [String: Any] {
        (fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any]) ?? [:]
    }

    private func ids(named name: String) -> [String] {
        fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == name }.compactMap {
            $0["id"] as? String
        }
    }

    private func writes() -> [FakeAirtable.LogEntry] { fake.recordLog.filter { $0.method != "GET" } }

    // MARK: - The whole life, by name

    func testAProjectsWholeLifeByName() throws {
        try startFake()
        let run = tracker()
        let id = try run.run(["add", "--name", "Life", "--due", "2030-01-10", "--kickoff", "2030-01-01"]).stdout
            .trimmingCharacters(in: .newlines)
        XCTAssertEqual(ids(named: "Life"), [id])

        let updated = try run.run(["update", "life", "--due", "friday"])
        XCTAssertEqual(updated.status, 0, updated.stderr)
        XCTAssertEqual(updated.stdout, id + "\n")
        XCTAssertEqual(fields(id)["Due date"] as? String, try XCTUnwrap(fridayAfterToday()))
        XCTAssertEqual(fields(id)["Kickoff date"] as? String, "2030-01-01", "fields not given stay as they were")

        XCTAssertEqual(try run.run(["done", "Life"]).stdout, id + "\n")
        XCTAssertEqual(fields(id)["Complete"] as? Bool, true)
        XCTAssertEqual(try run.run(["reopen", "Life"]).stdout, id + "\n")
        XCTAssertNil(fields(id)["Complete"])

        let deleted = try run.run(["delete", "Life", "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(deleted.stdout, id + "\n")
        XCTAssertEqual(ids(named: "Life"), [])
        assertFailure(try run.run(["show", "Life"]), status: 66, "no project is named \"Life\"")
    }

    private func fridayAfterToday() -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let weekday = calendar.component(.weekday, from: today)  // Sunday = 1 … Friday = 6
        let ahead = (6 - weekday + 7) % 7
        return day(ahead == 0 ? 7 : ahead)
    }

    func testUpdateChangesOnlyTheFieldsGiven() throws {
        try startFake()
        let id = "rec3g0Xxmw2rw3scs"
        let before = fields(id)
        let result = try tracker().run(["update", id, "--name", "CMCA identity refresh", "--clear", "kickoff"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var after = fields(id)
        XCTAssertEqual(after.removeValue(forKey: "Name") as? String, "CMCA identity refresh")
        XCTAssertNil(after["Kickoff date"])
        var expected = before
        expected.removeValue(forKey: "Name")
        expected.removeValue(forKey: "Kickoff date")
        XCTAssertEqual(NSDictionary(dictionary: after), NSDictionary(dictionary: expected))
        let patch = try XCTUnwrap(writes().first)
        XCTAssertEqual(patch.method, "PATCH")
        XCTAssertEqual(
            patch.body,
            #"{"records":[{"id":"rec3g0Xxmw2rw3scs","fields":{"Name":"CMCA identity refresh","Kickoff date":null}}]}"#)
    }

    func testUpdateJSONQuietAndDryRun() throws {
        try startFake()
        let json = try tracker().run(["update", "CMCA brand identity", "--category", "industrial DESIGN", "--json"])
        XCTAssertTrue(
            json.stdout.hasPrefix(
                #"{"id":"rec3g0Xxmw2rw3scs","name":"CMCA brand identity","category":"Industrial design""#), json.stdout)
        XCTAssertEqual(try tracker().run(["update", "CMCA brand identity", "--incomplete", "-q"]).stdout, "")
        let writesBefore = writes().count
        let dry = try tracker().run(["update", "CMCA brand identity", "--due", "2030-1-5", "--dry-run"])
        XCTAssertEqual(
            dry.stdout,
            "PATCH /v0/appFAKEbase000001/Design%20projects\n"
                + #"{"records":[{"id":"rec3g0Xxmw2rw3scs","fields":{"Due date":"2030-01-05"}}]}"# + "\n")
        XCTAssertEqual(writes().count, writesBefore, "a dry run writes nothing")
    }

    // MARK: - Several projects

    func testDoneAndReopenSeveralByNameTenARequest() throws {
        var records = FakeAirtable.generatedProjects(count: 30)
        records.append(["id": "recALREADYdone001", "fields": ["Name": "Already done", "Complete": true]])
        try startFake(records: records)
        // Every third generated project (1, 4, 7…) is complete already.
        let open = [2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        let names = open.map { "project \(String(format: "%05d", $0))" }  // any case
        let done = try tracker().run(["done"] + names + ["Already done", "Project 00004"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(
            Set(done.lines),
            Set(open.map { "rec" + String(format: "%014d", $0) } + ["recALREADYdone001", "rec00000000000004"]))
        XCTAssertEqual(
            writes().map(\.method), ["PATCH", "PATCH"], "12 projects: 10 and 2; those already done not at all")
        XCTAssertTrue(open.allSatisfy { fields("rec" + String(format: "%014d", $0))["Complete"] as? Bool == true })
        XCTAssertEqual(fake.recordLog.filter { $0.method == "GET" }.count, 1, "every name found in one request")

        let reopened = try tracker().run(["reopen", "Project 00002", "rec00000000000003", "--json"])
        let array = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(reopened.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.map { $0["complete"] as? Bool }, [false, false])
    }

    func testAnUnknownNameAmongSeveralWritesNothing() throws {
        try startFake()
        let result = try tracker().run(["done", "CMCA brand identity", "Premier utility bkie"])
        assertFailure(result, status: 66, "no project is named \"Premier utility bkie\"")
        XCTAssertTrue(result.stderr.contains("Did you mean \"Premier utility bike\"?"), result.stderr)
        XCTAssertTrue(writes().isEmpty)
    }

    func testAnAmbiguousNameListsIdsWithDueDates() throws {
        var records = FakeAirtable.recordedProjects
        records.append(["id": "recTWINtwin000001", "fields": ["Name": "Twin", "Due date": "2030-01-01"]])
        records.append(["id": "recTWINtwin000002", "fields": ["Name": "twin", "Due date": "2030-02-01"]])
        try startFake(records: records)
        let result = try tracker().run(["delete", "TWIN", "--yes"])
        assertFailure(
            result, status: 64,
            "2 projects are named \"TWIN\": recTWINtwin000001 (due 2030-01-01), recTWINtwin000002 (due 2030-02-01)")
        XCTAssertTrue(writes().isEmpty)
        XCTAssertTrue(
            try tracker().run(["show", "Twin", "--json"]).stdout.hasPrefix(#"{"id":"recTWINtwin000001","#),
            "an exact name wins over one that only matches ignoring case")
    }

    func testDeleteOffATerminalNeedsYes() throws {
        try startFake()
        let refused = try tracker().run(["delete", "CMCA brand identity"])
        assertFailure(refused, status: 64, "delete asks before deleting, and stdin is not a terminal; pass --yes")
        XCTAssertTrue(writes().isEmpty)
        XCTAssertEqual(ids(named: "CMCA brand identity").count, 1)
        let dry = try tracker().run(["delete", "CMCA brand identity", "rec6DyWEAw6ZOWrb4", "--dry-run"])
        XCTAssertEqual(
            dry.stdout,
            "DELETE /v0/appFAKEbase000001/Design%20projects?records%5B%5D=rec3g0Xxmw2rw3scs&records%5B%5D=rec6DyWEAw6ZOWrb4\n"
        )
        XCTAssertTrue(writes().isEmpty)
    }

    // MARK: - Dates

    func testEveryDateFormIsSentAsADate() throws {
        try startFake()
        let forms: [(String, String)] = [
            ("today", day(0)), ("tomorrow", day(1)), ("yesterday", day(-1)), ("+3d", day(3)), ("+2w", day(14)),
            ("-1d", day(-1)), ("2030-1-5", "2030-01-05"), ("2030-01-05", "2030-01-05"),
            ("friday", fridayAfterToday()!),
        ]
        for (index, (typed, expected)) in forms.enumerated() {
            let id = try tracker().run(["add", "--name", "Dated \(index)", "--due", typed]).stdout.trimmingCharacters(
                in: .newlines)
            XCTAssertEqual(fields(id)["Due date"] as? String, expected, typed)
        }
        let list = try tracker().run(["list", "--due-before", "tomorrow", "--format", "ndjson"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(
            list.lines.allSatisfy { line in
                guard let due = line.range(of: #""due":""#).map({ String(line[$0.upperBound...].prefix(10)) }) else {
                    return false
                }
                return due < day(1)
            })
        assertFailure(
            try tracker().run(["add", "--name", "X", "--due", "2026-02-30"]), status: 64,
            "--due '2026-02-30' is not a real date")
    }

    // MARK: - Nothing created by accident

    func testTheFakeReallyCreatesThingsUnderTypecast() throws {
        // So that the tests below could fail: a client that sent typecast would change the base.
        try startFake()
        var request = URLRequest(url: URL(string: fake.endpoint + "/v0/appFAKEbase000001/Design%20projects")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(fake.options.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            #"{"fields":{"Name":"T","Category":"Nope cat","Client":["Acme Crop"]},"typecast":true}"#.utf8)
        let done = expectation(description: "answered")
        URLSession(configuration: .ephemeral).dataTask(with: request) { _, _, _ in done.fulfill() }.resume()
        wait(for: [done], timeout: 10)
        XCTAssertTrue(fake.choices(ofField: "Category").contains("Nope cat"))
        XCTAssertTrue(
            fake.records(inTable: "Clients").contains {
                ($0["fields"] as? [String: Any])?["Name"] as? String == "Acme Crop"
            })
    }

    func testAnUnknownCategoryOrClientCreatesNothing() throws {
        try startFake()
        let choices = fake.choices(ofField: "Category")
        let clients = fake.records(inTable: "Clients").count
        let category = try tracker().run(["add", "--name", "X", "--due", "2030-01-01", "--category", "Nope cat"])
        assertFailure(
            category, status: 64,
            "unknown category \"Nope cat\"; the choices are \"Brand identity\", \"Industrial design\", \"Healthcare design\", \"Technology design\"."
        )
        let client = try tracker().run(["add", "--name", "X", "--due", "2030-01-01", "--client", "Acme Crop"])
        assertFailure(client, status: 64, "unknown client \"Acme Crop\" (tracker never creates one).")
        let update = try tracker().run(["update", "CMCA brand identity", "--client", "Clinet 1"])
        assertFailure(
            update, status: 64, "unknown client \"Clinet 1\" (tracker never creates one). Did you mean \"Client 1\"?")
        XCTAssertTrue(writes().isEmpty)
        XCTAssertEqual(fake.choices(ofField: "Category"), choices)
        XCTAssertEqual(fake.records(inTable: "Clients").count, clients)
    }

    func testValuesAreSentAsTheBaseSpellsThemWithoutTypecast() throws {
        try startFake()
        let result = try tracker().run([
            "add", "--name", "Checked", "--due", "2030-01-01", "--category", "brand IDENTITY", "--client", "client 2",
            "--lead", "gal samari", "--team", "Sam Epps", "--team", "katherineduh+collab37@demo.htable.com",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let id = result.stdout.trimmingCharacters(in: .newlines)
        let stored = fields(id)
        XCTAssertEqual(stored["Category"] as? String, "Brand identity")
        let client2 = fake.records(inTable: "Clients").first {
            ($0["fields"] as? [String: Any])?["Name"] as? String == "Client 2"
        }
        XCTAssertEqual(stored["Client"] as? [String], [try XCTUnwrap(client2?["id"] as? String)])
        XCTAssertEqual((stored["Project lead"] as? [String: Any])?["name"] as? String, "Gal Samari")
        XCTAssertEqual(
            (stored["Project team"] as? [[String: Any]])?.compactMap { $0["name"] as? String },
            ["Sam Epps", "Skyler Xu"])
        XCTAssertFalse(writes().contains { $0.body.contains("typecast") })
        XCTAssertEqual(fake.choices(ofField: "Category").count, 4)
    }

    // MARK: - Lost answers

    func testAnUpdateWhoseAnswerWasLostIsRetriedAndAppliedOnce() throws {
        try startFake()
        fake.inject(.applyThenDrop, onRequest: 2)  // the first request finds the project, the second is the PATCH
        let result = try tracker().run(["done", "CMCA brand identity"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "rec3g0Xxmw2rw3scs\n")
        XCTAssertEqual(fields("rec3g0Xxmw2rw3scs")["Complete"] as? Bool, true)
        XCTAssertEqual(writes().map(\.method), ["PATCH", "PATCH"])
    }

    func testADeleteWhoseAnswerWasLostIsConfirmedByLooking() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 25))
        let names = (1...12).map { "Project \(String(format: "%05d", $0))" }
        fake.inject(.applyThenDrop, onRequest: 3)  // the second batch of ten is applied, its answer lost
        let result = try tracker().run(["delete", "--yes"] + names)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines, (1...12).map { "rec" + String(format: "%014d", $0) })
        XCTAssertEqual(fake.records.count, 13)
        XCTAssertEqual(
            fake.recordLog.map(\.method), ["GET", "DELETE", "DELETE", "GET"], "looked, and did not delete again")
        XCTAssertFalse(fake.recordLog.contains { $0.status == 404 })
    }

    func testADeleteOfAProjectAlreadyGoneCountsAsDeleted() throws {
        try startFake()
        // Someone deletes it in Airtable between tracker finding it and asking to delete it: Airtable answers 404.
        fake.inject(.deletedElsewhereFirst(ids: ["rec3g0Xxmw2rw3scs"]), onRequest: 2)
        let result = try tracker().run(["delete", "--yes", "CMCA brand identity"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "rec3g0Xxmw2rw3scs\n")
        XCTAssertEqual(ids(named: "CMCA brand identity"), [])
        XCTAssertEqual(fake.recordLog.map(\.method), ["GET", "DELETE", "GET"], "looked, found it gone, sent no more")
        XCTAssertEqual(fake.recordLog[1].status, 404)
    }

    func testADeleteAnsweredWith404ThatDeletedNothingIsSentAgain() throws {
        try startFake()
        fake.inject(
            .raw(404, body: #"{"error":{"type":"MODEL_ID_NOT_FOUND","message":"Record not found"}}"#), onRequest: 2)
        let result = try tracker().run(["delete", "--yes", "CMCA brand identity"])
        // The 404 applied nothing, so looking finds the project still there and deletes it once more.
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "rec3g0Xxmw2rw3scs\n")
        XCTAssertEqual(ids(named: "CMCA brand identity"), [])
        XCTAssertEqual(fake.recordLog.map(\.method), ["GET", "DELETE", "GET", "DELETE"])
    }
}
