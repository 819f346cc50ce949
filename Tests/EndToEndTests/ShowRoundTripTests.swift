import FakeAirtable
import Foundation
import XCTest

/// `show`'s requests: what goes out beside the record, and what never waits for a whole linked table.
final class ShowRoundTripTests: FakeAirtableTestCase {
    static let coffee = "recPsjO1tkEyBCF7y"

    private func tasksReads(since start: Int) -> [FakeAirtable.LogEntry] {
        Array(fake.recordLog.dropFirst(start)).filter {
            $0.path.contains("tbl") && $0.path.contains("tasks") || $0.path.hasSuffix("/Tasks")
        }
    }

    /// After `list`, `show ID` knows the project's name: its tasks are read by that name beside the record, not by
    /// their ids after it.
    func testShowByIDAfterAListingReadsTheTasksBesideTheRecord() throws {
        var options = FakeAirtable.Options()
        options.tasks = [
            FakeTaskSpec(
                id: "recTASKproofs0001", "Proofs", projects: [Self.coffee], estimate: 1, completed: false, assignee: nil
            )
        ]
        try startFake(options: options)
        let run = tracker()
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let before = fake.recordLog.count
        let shown = try run.run(["show", Self.coffee])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("Proofs"), shown.stdout)
        let reads = tasksReads(since: before)
        XCTAssertEqual(reads.count, 1, "\(reads.map(\.query))")
        let formula = reads.first.map { $0.query.removingPercentEncoding ?? $0.query } ?? ""
        XCTAssertTrue(formula.contains("Coffee packaging"), "read by the remembered name, beside: \(formula)")
        XCTAssertFalse(formula.contains("RECORD_ID"), "not by id after the record: \(formula)")
    }

    /// A Clients table of 300 names: `show` reads one page of them beside the record and the one it lacks by id,
    /// never the three pages one after the other.
    func testShowReadsOnePageOfALinkedTableAndTheNamesItLacksById() throws {
        var records = FakeAirtable.recordedProjects
        for index in 0..<300 {
            records.append([
                "id": "recBIGproject" + String(format: "%04d", index), "createdTime": "2026-01-01T00:00:00.000Z",
                "fields": [
                    "Name": "Big project \(index)", "Due date": "2026-12-01",
                    "Client": ["recBIGclient" + String(format: "%05d", index)],
                ],
            ])
        }
        var options = FakeAirtable.Options()
        options.clientNames = []
        try startFake(records: records, options: options)
        let shown = try tracker().run(["show", "Big project 299"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let clientReads = fake.recordLog.filter { $0.path.contains("lient") }
        XCTAssertFalse(
            clientReads.contains { $0.query.contains("offset=") }, "never a second page: \(clientReads.map(\.query))")
        XCTAssertLessThanOrEqual(clientReads.count, 2, "\(clientReads.map(\.query))")
        XCTAssertTrue(clientReads.allSatisfy { $0.query.contains("maxRecords=100") || $0.query.contains("RECORD_ID") })
        XCTAssertFalse(shown.stdout.contains("  Clients   recBIG"), "the client's name, not its id: \(shown.stdout)")
    }
}
