import FakeAirtable
import Foundation
import XCTest

/// docs/contract.md "Fewest round trips": with the schema remembered, each everyday command waits for as few round
/// trips to
/// Airtable as the API allows, and requests that do not depend on each other go out together.
final class RoundTripTests: FakeAirtableTestCase {
    /// The requests `arguments` sent, and the result.
    private func requests(_ arguments: [String], _ run: TrackerProcess, stdin: String? = nil) throws -> (
        ProcessResult, [FakeAirtable.LogEntry]
    ) {
        // The base's recent second clear first: requests are paced as they arrive, and a new process's may arrive up to
        // 0.3 s after they leave, so those of the command before could otherwise make this one wait its turn.
        Thread.sleep(forTimeInterval: 1.5)
        let before = fake.log.count
        let result = try run.run(arguments, stdin: stdin)
        return (result, Array(fake.log.dropFirst(before)))
    }

    /// How many round trips `entries` took: requests that arrived before the previous ones were answered overlap.
    private func roundTrips(_ entries: [FakeAirtable.LogEntry]) -> Int {
        var trips = 0
        var answered = -Double.infinity
        for entry in entries.sorted(by: { $0.received < $1.received }) {
            if entry.received >= answered { trips += 1 }
            answered = max(answered, entry.time)
        }
        return trips
    }

    func testEachEverydayCommandWaitsForTheFewestRoundTrips() throws {
        var options = FakeAirtable.Options()
        options.latency = 0.05
        try startFake(
            records: FakeAirtable.recordedProjects + FakeAirtable.generatedProjects(count: 230), options: options)
        let run = tracker()
        XCTAssertEqual(try run.run(["list", "--limit", "1"]).status, 0, "the schema is remembered from here on")

        let (listed, listing) = try requests(["list"], run)
        XCTAssertEqual(listed.lines.count, 246)
        XCTAssertEqual(listing.count, 3, "one request a page")

        let id = "rec3g0Xxmw2rw3scs"
        _ = try run.run(["show", id])  // the first show also reads the linked tables' names, in the same round trip
        for target in [id, "CMCA brand identity"] {
            let (shown, sent) = try requests(["show", target], run)
            XCTAssertEqual(shown.status, 0, shown.stderr)
            XCTAssertTrue(shown.stdout.contains("  Clients   Client 1"), shown.stdout)
            // By name, or by an id a listing named, the project's tasks are asked for beside its record
            // (docs/contract.md
            // "Progress in projects"): two requests, one round trip.
            XCTAssertEqual(sent.count, 2, "show \(target): \(sent.map(\.path))")
            XCTAssertEqual(roundTrips(sent), 1, "show \(target): one round trip")
        }

        let (added, adding) = try requests(
            ["add", "--name", "Trip", "--due", "friday", "--category", "brand identity", "--client", "Client 1"], run)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(adding.map(\.method), ["POST"], "checked values cost nothing once the base is remembered")
        let new = added.stdout.trimmingCharacters(in: .newlines)

        let (updated, updating) = try requests(["update", new, "--due", "+3d"], run)
        XCTAssertEqual(updated.stdout, new + "\n", updated.stderr)
        // By id, with no copy and nothing read: the journal's one read of the touched fields, then the write.
        XCTAssertEqual(updating.map(\.method), ["GET", "PATCH"], "by id: the journal's read and the write")
        XCTAssertEqual(try requests(["update", "Trip", "--due", "+4d"], run).1.map(\.method), ["GET", "PATCH"])

        XCTAssertEqual(try requests(["done", new, id], run).1.map(\.method), ["GET", "PATCH"])
        XCTAssertEqual(try requests(["reopen", new], run).1.map(\.method), ["GET", "PATCH"])
        XCTAssertEqual(try requests(["done", "Trip"], run).1.map(\.method), ["GET", "PATCH"], "by name: two")

        let (deleted, deleting) = try requests(["delete", "--yes", new], run)
        XCTAssertEqual(deleted.stdout, new + "\n", deleted.stderr)
        XCTAssertEqual(deleting.map(\.method), ["GET", "DELETE"], "the row the journal keeps, then the delete")
        XCTAssertNil(fake.records.first { $0["id"] as? String == new })
    }

    func testAnIDOfAnotherTableFallsBackToTheNamingRuleAndWritesNothing() throws {
        try startFake()
        let run = tracker()
        let client = try XCTUnwrap(fake.records(inTable: "Clients").first?["id"] as? String)
        let clients = fake.records(inTable: "Clients").count
        let projects = fake.records.count
        for arguments in [["update", client, "--due", "friday"], ["done", client], ["delete", "--yes", client]] {
            let result = try run.run(arguments)
            assertFailure(result, status: 66, "no project has id or name \"\(client)\"")
        }
        XCTAssertEqual(fake.records(inTable: "Clients").count, clients, "no client deleted")
        XCTAssertEqual(fake.records.count, projects, "no project created or deleted")
        XCTAssertNotNil(fake.records(inTable: "Clients").first { $0["id"] as? String == client }, "not deleted")
        XCTAssertEqual(fake.recordLog.filter { $0.status == 200 && $0.method != "GET" }.count, 0, "nothing written")

        // A project whose name merely looks like an id is still found by the name, after Airtable's "not here".
        let named = try XCTUnwrap(
            try run.run(["add", "--name", "recordkeeping2024", "--due", "friday"]).stdout.split(separator: "\n").first)
        XCTAssertEqual(try run.run(["done", "recordkeeping2024"]).stdout, named + "\n")
        let fields = fake.records.first { $0["id"] as? String == String(named) }?["fields"] as? [String: Any]
        XCTAssertEqual(fields?["Complete"] as? Bool, true)
    }

    func testRequestsThatDoNotDependOnEachOtherGoOutTogether() throws {
        var options = FakeAirtable.Options()
        options.latency = 0.2
        try startFake(options: options)
        let run = tracker()
        XCTAssertEqual(try run.run(["list", "--limit", "1"]).status, 0)
        // show: the project, and the linked tables' names not yet remembered, in one round trip.
        let (shown, showing) = try requests(["show", "CMCA brand identity"], run)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertGreaterThan(showing.count, 1)
        XCTAssertEqual(roundTrips(showing), 1, "\(showing.map { ($0.path, $0.received, $0.time) })")
        // update by name: finding the project and looking up a client by name go together, then the write.
        let (updated, updating) = try requests(["update", "CMCA brand identity", "--client", "Client 2"], run)
        XCTAssertEqual(updated.status, 0, updated.stderr)
        XCTAssertEqual(roundTrips(updating), 2, "\(updating.map { ($0.method, $0.path, $0.received, $0.time) })")
    }
}
