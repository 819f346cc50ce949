import FakeAirtable
import Foundation
import XCTest

/// docs/contract.md "Fewest round trips", cold: with nothing remembered, a read goes out beside the schema read, and
/// nothing
/// is written before the schema confirms the fields it assumed.
final class ColdStartTests: FakeAirtableTestCase {
    private func startSlow(_ options: FakeAirtable.Options = .init(), records: [[String: Any]]? = nil) throws {
        var options = options
        options.latency = 0.3
        try startFake(records: records ?? FakeAirtable.recordedProjects, options: options)
    }

    /// A tracker with nothing remembered, not paced: requests that do not wait for each other are seen to leave
    /// together whatever order a loaded machine gives their turns under 5 a second.
    private func unpaced(_ extra: [String: String] = [:]) throws -> TrackerProcess {
        try configuredTracker(#""requestsPerSecond": 100"#, extra: extra)
    }

    /// The schema read and the record requests, each with when it arrived.
    private var schemaReads: [FakeAirtable.LogEntry] { fake.log.filter { $0.path.hasSuffix("/tables") } }

    func testListReportAndTimelineSendTheirWorkBesideTheSchemaRead() throws {
        try startSlow()
        for arguments in [["list", "--overdue"], ["report"], ["timeline"], ["calendar", "--all"]] {
            let run = tracker()  // a HOME of its own: nothing remembered
            let before = fake.log.count
            let result = try run.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(result.stdout.isEmpty, "\(arguments)")
            let sent = Array(fake.log.dropFirst(before))
            let schema = try XCTUnwrap(sent.first { $0.path.hasSuffix("/tables") }, "\(arguments)")
            let listing = try XCTUnwrap(sent.first { !$0.path.hasPrefix("/v0/meta/") }, "\(arguments)")
            // report also lists the open tasks (for the overdue projects' section), and timeline the tasks (for
            // done/total), beside the rest.
            XCTAssertEqual(
                sent.count, ["report", "timeline"].contains(arguments[0]) ? 3 : 2, "\(arguments): \(sent.map(\.path))")
            // Sent together: the listings arrived before the schema was answered, 300 ms later.
            XCTAssertTrue(sent.allSatisfy { abs($0.received - schema.received) < 0.15 }, "\(arguments)")
            XCTAssertLessThan(abs(listing.received - schema.received), 0.15, "\(arguments)")
            // The next run remembers the schema and sends the listing alone.
            let warm = try run.run(arguments)
            XCTAssertEqual(warm.stdout, result.stdout, "\(arguments)")
        }
    }

    /// `changes` cold: its listing leaves beside the schema read, and what it remembers is formatted by the schema's
    /// types, so the next run (schema remembered) sees nothing changed.
    func testChangesColdSendsItsListingBesideTheSchemaAndRemembersWhatAWarmRunSees() throws {
        var options = FakeAirtable.Options.customisedBase
        options.latency = 0.3
        try startFake(records: FakeAirtable.customisedProjects, options: options)
        let run = try configuredTracker(CustomisedBaseTests.mapping + #", "requestsPerSecond": 100"#)
        let cold = try run.run(["changes"])
        XCTAssertEqual(cold.status, 0, cold.stderr)
        let schema = try XCTUnwrap(schemaReads.first)
        let listing = try XCTUnwrap(fake.recordLog.first)
        XCTAssertLessThan(abs(listing.received - schema.received), 0.15, "sent together")
        let warm = try run.run(["changes"])
        XCTAssertEqual(warm.status, 0, warm.stderr)
        XCTAssertEqual(warm.stdout, "", "nothing changed: the cold run remembered the values as a warm run reads them")
        XCTAssertEqual(schemaReads.count, 1)
    }

    /// `show` by id cold: the record, the schema and the template's Clients names leave together; every request is
    /// sent before the first answer (300 ms late) comes back, so the command waits for one round trip (two for a
    /// project with tasks, read by id once the record says which).
    func testShowByIDSendsTheRecordBesideTheSchemaRead() throws {
        try startSlow()
        let id = "rec3g0Xxmw2rw3scs"
        // Coffee packaging links Tasks as well, a table the template has and the schema names.
        let coffee = "recPsjO1tkEyBCF7y"
        for arguments in [
            ["show", id], ["show", coffee], ["show", id, "--json"], ["open", id, "--url"], ["comments", id],
            ["edit", id],
        ] {
            let run = try unpaced(["EDITOR": "true"])
            let before = fake.log.count
            let result = try run.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            let sent = Array(fake.log.dropFirst(before))
            XCTAssertTrue(sent.contains { $0.path.hasSuffix("/tables") }, "\(arguments): \(sent.map(\.path))")
            let firstAnswer = try XCTUnwrap(sent.map(\.time).min())
            let late = sent.filter { $0.received > firstAnswer - 0.05 }
            if arguments == ["show", coffee] {
                // docs/contract.md "Tasks": by id, the project's tasks are read by the ids its record lists,
                // once it has arrived (a second round trip; never a listing of the whole Tasks table).
                XCTAssertEqual(late.map(\.path), ["/v0/appFAKEbase000001/tblFAKEtasks00001"], "\(arguments)")
                XCTAssertTrue(late.allSatisfy { $0.query.contains("RECORD_ID") }, "\(late.map(\.query))")
                XCTAssertFalse(sent.contains { $0.path.contains("Tasks") && $0.query.contains("TRUE") })
            } else {
                XCTAssertEqual(late.count, 0, "\(arguments): sent after an answer: \(late.map(\.path))")
            }
            if arguments == ["show", coffee] {
                XCTAssertTrue(
                    result.stdout.contains("Dieline and proofs") && result.stdout.contains("Client 6"), result.stdout)
            }
            if arguments == ["show", id] {
                XCTAssertTrue(result.stdout.contains("Clients   Client 1"), result.stdout)
                XCTAssertEqual(try run.run(arguments).stdout, result.stdout, "the same view warm")
            }
        }
    }

    /// `comment` cold: the schema, who the token is and the project leave together; the POST waits for the project
    /// only (two round trips, as warm).
    func testACommentWaitsForTheProjectAloneBeforeItsPost() throws {
        try startSlow()
        let result = try unpaced().run(["comment", "rec3g0Xxmw2rw3scs", "Proofs are in"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let post = try XCTUnwrap(fake.log.first { $0.method == "POST" })
        let before = fake.log.filter { $0.method != "POST" }
        XCTAssertEqual(
            Set(before.map { $0.path.hasPrefix("/v0/meta/") ? $0.path : "record" }).count, 3, "\(before.map(\.path))")
        XCTAssertLessThan(try XCTUnwrap(before.map(\.received).max()), try XCTUnwrap(before.map(\.time).min()))
        XCTAssertGreaterThanOrEqual(post.received, try XCTUnwrap(before.map(\.time).min()))
    }

    /// Writes by id whose values need no schema: the journal's one read of the record's touched fields (there is no
    /// copy, and the write reads nothing else) leaves beside the schema read, and the write right after its answer:
    /// two round trips, never more.
    func testWritesByIDGoOutBesideTheSchemaRead() throws {
        try startSlow()
        let id = "rec3g0Xxmw2rw3scs"
        for arguments in [
            ["done", id], ["reopen", id], ["update", id, "--due", "2027-01-15"], ["delete", "--yes", id],
        ] {
            let run = try unpaced()
            let before = fake.log.count
            let result = try run.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout, id + "\n", "\(arguments)")
            let sent = Array(fake.log.dropFirst(before))
            XCTAssertTrue(sent.contains { $0.path.hasSuffix("/tables") }, "\(arguments): \(sent.map(\.path))")
            let records = sent.filter { !$0.path.hasPrefix("/v0/meta/") }
            XCTAssertEqual(
                records.map(\.method), ["GET", arguments[0] == "delete" ? "DELETE" : "PATCH"], "\(sent.map(\.path))")
            let firstAnswer = try XCTUnwrap(sent.map(\.time).min())
            XCTAssertEqual(
                sent.filter { $0.received > firstAnswer - 0.05 }.map(\.method), [records[1].method],
                "only the write waits, for the read's answer: \(arguments)")
            let fields = fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any]
            switch arguments[0] {
            case "done": XCTAssertEqual(fields?["Complete"] as? Bool, true)
            case "reopen": XCTAssertNil(fields?["Complete"] as? Bool == true ? true : nil)
            case "update": XCTAssertEqual(fields?["Due date"] as? String, "2027-01-15")
            default: XCTAssertNil(fields, "deleted")
            }
        }
    }

    /// A write that names a field the base deleted (and the secrets file does not say so) is refused by Airtable, and
    /// the command runs again with the schema: the user hears about the field, and nothing was written.
    func testAWriteOnAFieldTheSchemaLacksIsRefusedThenCheckedAgainstTheSchema() throws {
        var options = FakeAirtable.Options()
        options.removedFields = ["Kickoff date"]
        try startSlow(options)
        let id = "rec3g0Xxmw2rw3scs"
        let before = fake.records.first { $0["id"] as? String == id }?["fields"] as? NSDictionary
        assertFailure(try tracker().run(["update", id, "--kickoff", "2027-01-04"]), status: 64, "--kickoff needs")
        XCTAssertEqual(fake.records.first { $0["id"] as? String == id }?["fields"] as? NSDictionary, before)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "PATCH" && $0.status == 200 }.count, 0)
    }

    /// `add` of a name and dates cold: the create leaves beside the schema read. One the base cannot hold (its kickoff
    /// field deleted, the secrets file not saying so) is refused by Airtable, then told against the schema, and never
    /// sent twice.
    func testAddOfNameAndDatesGoesOutBesideTheSchemaAndIsNeverSentTwice() throws {
        var options = FakeAirtable.Options()
        options.removedFields = ["Kickoff date"]
        try startSlow(options)
        let count = fake.records.count
        let added = try unpaced().run(["add", "--name", "Cold start", "--due", "2027-01-08"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("rec"), added.stdout)
        let firstAnswer = try XCTUnwrap(fake.log.map(\.time).min())
        XCTAssertEqual(fake.log.filter { $0.received > firstAnswer - 0.05 }.count, 0, "\(fake.log.map(\.path))")
        XCTAssertEqual(fake.records.count, count + 1)

        let before = fake.recordLog.count
        let refused = try unpaced().run(["add", "--name", "Kicked off", "--due", "2027-01-08", "--kickoff", "today"])
        assertFailure(refused, status: 64, "--kickoff needs")
        XCTAssertEqual(fake.records.count, count + 1, "nothing created")
        XCTAssertEqual(fake.recordLog.dropFirst(before).filter { $0.method == "POST" }.count, 1, "sent once")
    }

    func testASchemaThatContradictsTheAssumedFieldsRunsTheCommandAgainAndPrintsOnce() throws {
        // "Kickoff date" was deleted and the secrets file does not say so: the assumed fields name it.
        var options = FakeAirtable.Options()
        options.removedFields = ["Kickoff date"]
        try startSlow(options)
        let cold = try tracker().run(["list", "--json"])
        XCTAssertEqual(cold.status, 0, cold.stderr)
        let projects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(cold.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(projects.count, fake.records.count, "printed once")
        XCTAssertTrue(projects.allSatisfy { $0["kickoff"] is NSNull })
        XCTAssertEqual(schemaReads.count, 1, "the second run uses the schema the first read")
        XCTAssertEqual(fake.recordLog.count, 2, "the listing sent beside the schema, then again with its fields")
        // The same projects as a run that read the schema first (the fake's key order inside "fields" varies).
        // Attachment addresses are signed anew for every answer, as Airtable's are.
        let warm = try tracker().run(["list", "--json"])
        let warmProjects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(warm.stdout.utf8)) as? [Any])
        XCTAssertEqual(withoutAddresses(warmProjects) as? NSArray, withoutAddresses(projects) as? NSArray)

    }

    func testAViewTypedInAnotherCaseWaitsForTheSchemaToFindIt() throws {
        try startSlow()
        let result = try tracker().run(["list", "--view", "completed PROJECTS"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let sent = fake.log
        XCTAssertEqual(sent.first?.path.hasSuffix("/tables"), true)
        XCTAssertGreaterThan(try XCTUnwrap(sent.last).received, try XCTUnwrap(sent.first).time - 0.01)
    }
}

/// A JSON value with every `url` member left out.
func withoutAddresses(_ value: Any) -> Any {
    if let object = value as? [String: Any] {
        return object.filter { $0.key != "url" }.mapValues(withoutAddresses)
    }
    if let array = value as? [Any] { return array.map(withoutAddresses) }
    return value
}
