import FakeAirtable
import Foundation
import XCTest

/// The journal and undo through the built binary: every write is an entry `history` lists; `undo` puts fields back,
/// deletes a create, makes a deletion again with its links, and never writes over a change made since.
final class JournalTests: FakeAirtableTestCase {
    private func fields(_ id: String, table: String? = nil) -> [String: Any] {
        let records = table.map { fake.records(inTable: $0) } ?? fake.records
        return (records.first { $0["id"] as? String == id }?["fields"] as? [String: Any]) ?? [:]
    }

    private func history(_ run: TrackerProcess, _ extra: [String] = []) throws -> [[String: Any]] {
        let result = try run.run(["history", "--json"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    private func writes() -> [FakeAirtable.LogEntry] { fake.recordLog.filter { $0.method != "GET" } }

    // MARK: - History

    func testEveryCommandLineWriteIsAnEntryNewestFirst() throws {
        try startFake()
        let run = tracker()
        let id = try run.run(["add", "--name", "Journaled", "--due", "2030-01-10"]).stdout.trimmingCharacters(
            in: .newlines)
        XCTAssertEqual(try run.run(["update", id, "--due", "2030-02-01", "--notes", "first"]).status, 0)
        XCTAssertEqual(try run.run(["done", "Journaled"]).status, 0)
        let entries = try history(run)
        XCTAssertEqual(entries.map { $0["command"] as? String }, ["done", "update", "add"])
        XCTAssertEqual(Set(entries.map { $0["face"] as? String }), ["cli"])
        XCTAssertEqual(Set(entries.map { $0["status"] as? String }), ["done"])
        let update = try XCTUnwrap((entries[1]["changes"] as? [[String: Any]])?.first)
        XCTAssertEqual(update["id"] as? String, id)
        XCTAssertEqual(
            NSDictionary(dictionary: try XCTUnwrap(update["before"] as? [String: Any])),
            NSDictionary(dictionary: ["Due date": "2030-01-10", "Notes": NSNull()]))
        XCTAssertEqual(
            NSDictionary(dictionary: try XCTUnwrap(update["after"] as? [String: Any])),
            NSDictionary(dictionary: ["Due date": "2030-02-01", "Notes": "first"]))
        let add = try XCTUnwrap((entries[2]["changes"] as? [[String: Any]])?.first)
        XCTAssertEqual(add["kind"] as? String, "create")
        XCTAssertEqual(add["id"] as? String, id)
        XCTAssertEqual(try history(run, ["--limit", "1"]).count, 1)

        let piped = try run.run(["history"])
        XCTAssertEqual(piped.stdout.split(separator: "\n").count, 3)
        let columns = piped.stdout.split(separator: "\n").first.map { $0.components(separatedBy: "\t") }
        XCTAssertEqual(columns?.count, 7, piped.stdout)
        XCTAssertEqual(columns?[3], "cli")
        XCTAssertEqual(columns?[4], "done")
    }

    func testAJournalNobodyCanKeepStopsTheWrite() throws {
        try startFake()
        // The state directory's place is a file: the journal cannot be kept there.
        let run = tracker()
        try FileManager.default.createDirectory(
            atPath: run.runtimeDirectory + "/.local", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: run.runtimeDirectory + "/.local/state", contents: Data()))
        let before = fake.records.count
        assertFailure(
            try run.run(["add", "--name", "Unjournaled", "--due", "2030-01-01"]), status: 75,
            "the journal could not keep this write")
        XCTAssertEqual(fake.records.count, before, "nothing was written")
        XCTAssertTrue(writes().isEmpty)

        let bestEffort = try configuredTracker(#""journal": "best-effort""#)
        try FileManager.default.createDirectory(
            atPath: bestEffort.runtimeDirectory + "/.local", withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: bestEffort.runtimeDirectory + "/.local/state", contents: Data()))
        let written = try bestEffort.run(["add", "--name", "Best effort", "--due", "2030-01-01"])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(written.stderr.contains("writing anyway"), written.stderr)
        XCTAssertEqual(fake.records.count, before + 1)
    }

    // MARK: - Undo

    func testUndoPutsAnUpdateBackAndSaysSoOnce() throws {
        try startFake()
        let run = tracker()
        let id = "rec3g0Xxmw2rw3scs"
        let before = fields(id)
        XCTAssertEqual(try run.run(["update", id, "--due", "2031-05-05", "--clear", "kickoff"]).status, 0)
        let entry = try XCTUnwrap(try history(run).first?["id"] as? String)
        let undone = try run.run(["undo", "--yes"])
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertTrue(undone.stdout.hasPrefix("Undid \(entry)"), undone.stdout)
        XCTAssertEqual(fields(id)["Due date"] as? String, before["Due date"] as? String)
        XCTAssertEqual(fields(id)["Kickoff date"] as? String, before["Kickoff date"] as? String)

        // Twice: one line, nothing written.
        let count = writes().count
        let again = try run.run(["undo", entry, "--yes"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(
            again.stdout,
            "\(entry) was already undone (by \(try XCTUnwrap(try history(run).first?["id"] as? String))); nothing written.\n"
        )
        XCTAssertEqual(writes().count, count)
        let entries = try history(run)
        XCTAssertEqual(entries.first?["undoes"] as? String, entry, "the undo is journaled, naming what it undid")
        XCTAssertEqual(entries.last?["status"] as? String, "undone")
    }

    func testUndoNeverWritesOverAChangeMadeSince() throws {
        try startFake()
        let run = tracker()
        let id = "rec3g0Xxmw2rw3scs"
        let name = try XCTUnwrap(fields(id)["Name"] as? String)
        XCTAssertEqual(try run.run(["update", id, "--due", "2031-05-05", "--notes", "from tracker"]).status, 0)
        XCTAssertTrue(fake.editInApp(projectNamed: name, setting: ["Notes": "changed in the app"]))
        let before = writes().count
        let undone = try run.run(["undo", "--yes"])
        // What was undone is said on stdout; what was left alone is the failure's one line (75).
        XCTAssertEqual(undone.status, 75, undone.stderr)
        XCTAssertTrue(
            undone.stderr.hasPrefix("tracker: ") && undone.stderr.contains("made since, left alone"), undone.stderr)
        XCTAssertTrue(undone.stdout.contains("\(id): Due date back to"), undone.stdout)
        XCTAssertTrue(undone.stderr.contains("\"Notes\" is now \"changed in the app\""), undone.stderr)
        XCTAssertEqual(fields(id)["Notes"] as? String, "changed in the app", "never written over")
        XCTAssertNotEqual(
            fields(id)["Due date"] as? String, "2031-05-05", "what still held the entry's value went back")
        let patch = try XCTUnwrap(writes().dropFirst(before).first)
        XCTAssertFalse(patch.body.contains("Notes"), patch.body)
    }

    func testUndoOfACreateDeletesIt() throws {
        try startFake()
        let run = tracker()
        let id = try run.run(["add", "--name", "Made by mistake", "--due", "2030-01-01"]).stdout.trimmingCharacters(
            in: .newlines)
        let dry = try run.run(["undo", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("\(id): delete it"), dry.stdout)
        XCTAssertFalse(fields(id).isEmpty, "a dry run sends nothing")
        let undone = try run.run(["undo"])
        assertFailure(
            undone, status: 64,
            "undo asks before undoing, and stdin is not a terminal; pass --yes to undo without asking (nothing was undone)"
        )
        XCTAssertEqual(try run.run(["undo", "--yes"]).status, 0)
        XCTAssertTrue(fields(id).isEmpty)
    }

    func testUndoOfADeletionMakesItAgainWithItsTasksLinked() throws {
        var options = FakeAirtable.Options()
        let project = "rec3g0Xxmw2rw3scs"
        options.tasks = [
            FakeTaskSpec(id: "recTASKjournal001", "Sketch", projects: [project]),
            FakeTaskSpec(id: "recTASKjournal002", "Review", projects: [project], estimate: 2),
        ]
        try startFake(options: options)
        let run = tracker()
        let before = fields(project)
        let deleted = try run.run(["delete", project, "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertTrue(fields(project).isEmpty)
        for task in ["recTASKjournal001", "recTASKjournal002"] {
            XCTAssertNil(fields(task, table: "Tasks")["Design project"], "Airtable unlinks a deleted record's tasks")
        }
        let undone = try run.run(["undo", "--yes"])
        XCTAssertEqual(undone.status, 0, undone.stderr)
        let line = try XCTUnwrap(undone.stdout.split(separator: "\n").first { $0.contains("is now") })
        let now = String(try XCTUnwrap(line.split(separator: " ").last))
        XCTAssertNotEqual(now, project, "a new id, said plainly")
        XCTAssertTrue(undone.stdout.contains("trash"), undone.stdout)
        let remade = fields(now)
        XCTAssertEqual(remade["Name"] as? String, before["Name"] as? String)
        XCTAssertEqual(remade["Due date"] as? String, before["Due date"] as? String)
        XCTAssertEqual(remade["Client"] as? [String], before["Client"] as? [String])
        for task in ["recTASKjournal001", "recTASKjournal002"] {
            XCTAssertEqual(fields(task, table: "Tasks")["Design project"] as? [String], [now], "its tasks point at it")
        }
        // Undone once: a second undo writes nothing.
        let count = writes().count
        XCTAssertEqual(try run.run(["undo", "--yes"]).status, 0)
        XCTAssertEqual(writes().count, count)
    }

    func testUndoTakesBackACommentAndAnAttachedFileAndFilesRemoved() throws {
        try startFake()
        let run = tracker()
        let id = "rec3g0Xxmw2rw3scs"  // three recorded images
        func images() -> [String] {
            ((fields(id)["Project images"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }
        XCTAssertEqual(try run.run(["comment", id, "Undo me"]).status, 0)
        XCTAssertEqual(fake.comments(on: id).count, 1)
        let uncommented = try run.run(["undo", "--yes"])
        XCTAssertEqual(uncommented.status, 0, uncommented.stderr)
        XCTAssertEqual(fake.comments(on: id).count, 0)

        let three = images()
        let path = run.runtimeDirectory + "/sketch.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 100)))
        let attached = try run.run(["attach", id, path])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        XCTAssertEqual(images().count, 4)
        let detached = try run.run(["undo", "--yes"])
        XCTAssertEqual(detached.status, 0, detached.stderr)
        XCTAssertEqual(images(), three, "the file it added is gone, the others kept by id")

        let removed = try run.run(["files", id, "--remove", three[0], "--yes"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(images().count, 2)
        let back = try run.run(["undo", "--yes"])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(images().count, 3, "the removed file comes back from its address")
        XCTAssertEqual(Array(images().dropFirst()), Array(three.dropFirst()), "the kept files are the same files")
    }

    /// An assistant's write over `tracker mcp` is journaled under its tool and the client's name; the `history` and
    /// `undo` tools answer within their output schemas (a client checks them), and the undo puts the field back.
    func testAnAssistantsWriteIsJournaledAndItsUndoToolTakesItBack() throws {
        try startFake()
        let session = try MCPSession(tracker())
        _ = session.call("initialize", MCPTests.initialize)
        session.notify("notifications/initialized")
        func allowed(_ tool: String) -> Set<String> { ApprovalTests.allowed(tool, in: session) }
        let id = "rec3g0Xxmw2rw3scs"
        let notes = fields(id)["Notes"] as? String
        let updated = session.tool("update_project", ["project": id, "notes": "an assistant was here"])
        XCTAssertNotEqual(updated["isError"] as? Bool, true, "\(updated)")
        let history = session.tool("history", ["limit": 5]).structured
        XCTAssertTrue(Set(history.keys).isSubset(of: allowed("history")), "\(history.keys)")
        let entry = try XCTUnwrap((history["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["face"] as? String, "mcp")
        XCTAssertEqual(entry["command"] as? String, "update_project")
        XCTAssertEqual(entry["client"] as? String, "tests", "the name the client gave itself")
        let undone = session.tool("undo", [:]).structured
        XCTAssertTrue(Set(undone.keys).isSubset(of: allowed("undo")), "\(undone.keys) beyond \(allowed("undo"))")
        XCTAssertEqual(undone["entry"] as? String, entry["id"] as? String)
        XCTAssertEqual(fields(id)["Notes"] as? String, notes)
        let again = session.tool("undo", ["id": try XCTUnwrap(entry["id"] as? String)]).structured
        XCTAssertEqual(again["alreadyUndoneBy"] as? String, undone["undoEntry"] as? String)
    }

    func testAnUnknownEntryIsNotFound() throws {
        try startFake()
        assertFailure(try tracker().run(["undo", "wrtAAAAAAAAAAAAAA", "--yes"]), status: 66, "no journal entry")
        assertFailure(try tracker().run(["undo", "nope"]), status: 64, "not a journal entry's id")
    }
}

/// The journal through the team's Redis: every machine sees every entry, and a Redis that refuses it stops the write.
final class TeamJournalTests: FakeAirtableTestCase {
    func testTwoMachinesShareOneJournalAndEitherUndoesOnce() throws {
        let redis = try RedisServer()
        try startFake()
        let laptop = tracker(["TRACKER_REDIS_URL": redis.url()])
        let desktop = tracker(["TRACKER_REDIS_URL": redis.url()])
        let id = "rec3g0Xxmw2rw3scs"
        XCTAssertEqual(try laptop.run(["update", id, "--notes", "from the laptop"]).status, 0)
        let seen = try desktop.run(["history", "--json"])
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(seen.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.count, 1, seen.stdout)
        let entry = try XCTUnwrap(entries.first?["id"] as? String)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: laptop.runtimeDirectory + "/.local/state/tracker/journal"),
            "kept in Redis, not on the machine")
        // Both undo at once: one writes, the other finds it undone.
        let results = try runTogether([(laptop, ["undo", entry, "--yes"]), (desktop, ["undo", entry, "--yes"])])
        XCTAssertEqual(results.map(\.status), [0, 0], results.map(\.stderr).joined())
        XCTAssertEqual(results.filter { $0.stdout.hasPrefix("Undid") }.count, 1, results.map(\.stdout).joined())
        XCTAssertEqual(fake.recordLog.filter { $0.method == "PATCH" }.count, 2, "the update and one undo")
        let notes = (fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any])?["Notes"]
        XCTAssertNotEqual(notes as? String, "from the laptop")
    }

    func testARedisThatRefusesTheJournalStopsTheWrite() throws {
        let redis = try RedisServer()
        try startFake()
        let run = tracker(["TRACKER_REDIS_URL": redis.url()])
        // A full Redis under noeviction refuses every write that grows it.
        _ = try redis.cli(["CONFIG", "SET", "maxmemory-policy", "noeviction"])
        _ = try redis.cli(["CONFIG", "SET", "maxmemory", "1"])
        let before = fake.records.count
        let result = try run.run(["add", "--name", "Not journaled", "--due", "2030-01-01"])
        // The engine says first that it paces on this machine; the failure is the journal's.
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("tracker: the journal could not keep this write, so nothing was written"),
            result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(fake.records.count, before)
        XCTAssertTrue(fake.recordLog.filter { $0.method != "GET" }.isEmpty)
    }
}
