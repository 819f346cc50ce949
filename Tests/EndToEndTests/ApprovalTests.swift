import FakeAirtable
import Foundation
import XCTest

/// Assistants' writes an approval policy holds, through the built binary: planned over `tracker mcp` (nothing sent),
/// listed by `tracker approvals`, made once by `tracker approve` (after the records are read again), dropped by
/// `tracker reject`, and never written over a change made since the plan.
final class ApprovalTests: FakeAirtableTestCase {
    private let id = "rec3g0Xxmw2rw3scs"

    private func fields(_ id: String) -> [String: Any] {
        (fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any]) ?? [:]
    }

    /// The writes to records (a face's copy registering its webhook is not one).
    private func writes() -> [FakeAirtable.LogEntry] {
        fake.recordLog.filter { $0.method != "GET" && !$0.path.contains("/bases/") }
    }

    /// A tracker whose assistants' writes of `kinds` wait, and an mcp session of it, initialized.
    private func assistant(_ kinds: String) throws -> (TrackerProcess, MCPSession) {
        let run = try configuredTracker(#""assistants": {"approve": [\#(kinds)]}"#)
        let session = try MCPSession(run)
        _ = session.call("initialize", MCPTests.initialize)
        session.notify("notifications/initialized")
        return (run, session)
    }

    /// The keys a tool's output schema allows, in any of its shapes.
    static func allowed(_ tool: String, in session: MCPSession) -> Set<String> {
        let tools = (session.call("tools/list")["result"] as? [String: Any])?["tools"] as? [[String: Any]] ?? []
        let schema = tools.first { $0["name"] as? String == tool }?["outputSchema"] as? [String: Any] ?? [:]
        let shapes = (schema["anyOf"] as? [[String: Any]]) ?? [schema]
        return shapes.reduce(into: Set<String>()) { $0.formUnion(($1["properties"] as? [String: Any] ?? [:]).keys) }
    }

    /// What `command --json` lists (approvals, history): its array, the command having succeeded.
    private func listed(_ run: TrackerProcess, _ command: String) throws -> [[String: Any]] {
        let listed = try run.run([command, "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    }

    private func approvals(_ run: TrackerProcess) throws -> [[String: Any]] { try listed(run, "approvals") }

    private func history(_ run: TrackerProcess) throws -> [[String: Any]] { try listed(run, "history") }

    func testAnAssistantsUpdateWaitsAndApproveMakesItOnce() throws {
        try startFake()
        let (run, session) = try assistant(#""update""#)
        let notes = fields(id)["Notes"] as? String
        let answer = session.tool("update_project", ["project": id, "notes": "an assistant wants this"])
        XCTAssertFalse(answer.isError, "\(answer)")
        let waiting = answer.structured
        XCTAssertEqual(waiting["status"] as? String, "approval_needed")
        let approval = try XCTUnwrap(waiting["approval"] as? String)
        XCTAssertTrue(approval.hasPrefix("apr") && approval.count == 17, approval)
        XCTAssertTrue((waiting["diff"] as? String ?? "").contains("Notes"), "\(waiting)")
        XCTAssertTrue(
            Set(waiting.keys).isSubset(of: Self.allowed("update_project", in: session)), "\(waiting.keys)")
        XCTAssertTrue(writes().isEmpty, "planned, not sent: \(writes().map { "\($0.method) \($0.path)" })")
        XCTAssertEqual(fields(id)["Notes"] as? String, notes)

        let listed = try approvals(run)
        XCTAssertEqual(listed.map { $0["id"] as? String }, [approval])
        XCTAssertEqual(listed.first?["tool"] as? String, "update_project")
        XCTAssertEqual(listed.first?["status"] as? String, "pending")
        // Off a terminal it needs --yes; nothing is written without.
        assertFailure(try run.run(["approve", approval]), status: 64, "pass --yes")
        XCTAssertTrue(writes().isEmpty)

        let made = try run.run(["approve", approval, "--yes"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.hasPrefix("Made \(approval) (as wrt"), made.stdout)
        XCTAssertEqual(fields(id)["Notes"] as? String, "an assistant wants this")
        XCTAssertEqual(writes().filter { $0.method == "PATCH" }.count, 1)

        let status = session.tool("approval_status", ["id": approval]).structured
        XCTAssertEqual(status["status"] as? String, "applied", "\(status)")
        let result = try XCTUnwrap(status["result"] as? [String: Any])
        XCTAssertEqual(result["records"] as? [String], [id])
        XCTAssertTrue(Set(status.keys).isSubset(of: Self.allowed("approval_status", in: session)), "\(status.keys)")

        // Approving twice writes nothing and says so (exit 0).
        let again = try run.run(["approve", approval, "--yes"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("was already made"), again.stdout)
        XCTAssertEqual(writes().count, 1)
        XCTAssertTrue(try approvals(run).isEmpty, "nothing waits any more")

        // The write is journaled with the approval, and undoable like any.
        let written = try history(run)
        XCTAssertEqual(written.first?["approved"] as? String, approval)
        XCTAssertEqual(written.first?["command"] as? String, "approve")
        XCTAssertFalse(written.contains { ($0["id"] as? String)?.hasPrefix("apr") == true }, "a plan is no write")
        XCTAssertEqual(try run.run(["undo", "--yes"]).status, 0)
        XCTAssertEqual(fields(id)["Notes"] as? String, notes)
    }

    func testAnAssistantsUndoWaitsAndApprovedTakesTheEntryBackOnce() throws {
        try startFake()
        let (run, session) = try assistant(#""update""#)
        let notes = fields(id)["Notes"] as? String
        XCTAssertEqual(try run.run(["update", id, "--notes", "set by a person"]).status, 0)
        let original = try XCTUnwrap(history(run).first?["id"] as? String)

        // The assistant's undo is a write like any: held, nothing sent, the entry not yet marked undone.
        let waiting = session.tool("undo", ["id": original]).structured
        XCTAssertEqual(waiting["status"] as? String, "approval_needed", "\(waiting)")
        let approval = try XCTUnwrap(waiting["approval"] as? String)
        XCTAssertEqual(fields(id)["Notes"] as? String, "set by a person")
        XCTAssertNil(try history(run).first { $0["id"] as? String == original }?["undoneBy"])

        let made = try run.run(["approve", approval, "--yes"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(fields(id)["Notes"] as? String, notes)
        // Approved, it is that entry's undo: marked on it, so a second undo writes nothing.
        let entries = try history(run)
        let undoneBy = try XCTUnwrap(entries.first { $0["id"] as? String == original }?["undoneBy"] as? String)
        XCTAssertEqual(entries.first { $0["id"] as? String == undoneBy }?["undoes"] as? String, original)
        let patches = writes().count
        let again = try run.run(["undo", original, "--yes"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("already undone"), again.stdout)
        XCTAssertEqual(writes().count, patches)
    }

    func testAnAttachWaitsWithItsFileAndOnlyThoseBytesAreEverSent() throws {
        try startFake()
        let run = try configuredTracker(#""assistants": {"approve": ["attach"]}"#)
        let root = run.runtimeDirectory + "/share"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let session = try MCPSession(run, arguments: ["mcp", "--root", root])
        _ = session.call("initialize", MCPTests.initialize)
        session.notify("notifications/initialized")
        let file = URL(fileURLWithPath: root + "/mock-up.png")
        try Data("the first mock-up".utf8).write(to: file)
        let images = { (self.fields(self.id)["Project images"] as? [Any])?.count ?? 0 }
        let before = images()

        let waiting = session.tool("attach_file", ["project": id, "path": "mock-up.png"]).structured
        XCTAssertEqual(waiting["status"] as? String, "approval_needed", "\(waiting)")
        XCTAssertTrue((waiting["diff"] as? String ?? "").contains("attach \"mock-up.png\" ("), "\(waiting)")
        let approval = try XCTUnwrap(waiting["approval"] as? String)
        XCTAssertTrue(writes().isEmpty, "planned, not sent")

        // The file changed since the person saw the plan: those bytes are never sent.
        try Data("something else entirely".utf8).write(to: file)
        assertFailure(try run.run(["approve", approval, "--yes"]), status: 75, "is not what was planned")
        XCTAssertEqual(images(), before)

        // Planned again with the file as it is: approved, it is sent once, and a second approval sends nothing.
        let planned = session.tool("attach_file", ["project": id, "path": "mock-up.png"]).structured
        let second = try XCTUnwrap(planned["approval"] as? String, "\(planned)")
        let made = try run.run(["approve", second, "--yes"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(images(), before + 1)
        XCTAssertEqual(try run.run(["approve", second, "--yes"]).status, 0)
        XCTAssertEqual(images(), before + 1)
    }

    func testAChangeMadeSinceThePlanIsShownAndNeverWrittenOver() throws {
        try startFake()
        let (run, session) = try assistant(#""update""#)
        let name = try XCTUnwrap(fields(id)["Name"] as? String)
        let waiting = session.tool("update_project", ["project": id, "notes": "the assistant's notes"]).structured
        let approval = try XCTUnwrap(waiting["approval"] as? String)
        XCTAssertTrue(fake.editInApp(projectNamed: name, setting: ["Notes": "a person's notes"]))

        let refused = try run.run(["approve", approval, "--yes"])
        XCTAssertEqual(refused.status, 75, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("tracker: \(approval) was not made"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("\"Notes\" is now \"a person's notes\""), refused.stderr)
        XCTAssertTrue(writes().isEmpty, "nothing written over a change the person did not see")
        XCTAssertEqual(fields(id)["Notes"] as? String, "a person's notes")
        let status = session.tool("approval_status", ["id": approval]).structured
        XCTAssertEqual(status["status"] as? String, "conflicted")
        XCTAssertTrue((status["diff"] as? String ?? "").contains("a person's notes"), "the records as they are now")

        // Seen again, approved again: the write is made.
        let made = try run.run(["approve", approval, "--yes"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(fields(id)["Notes"] as? String, "the assistant's notes")
        XCTAssertEqual(writes().count, 1)
    }

    func testARejectedDeletionIsNeverMadeAndAnotherTokenCannotApproveIt() throws {
        var options = FakeAirtable.Options()
        options.persons = ["patFAKEstranger00.0123456789abcdef": "usrSTRANGER000001"]
        let author = (id: "usrGAL00000000001", name: "Gal Samari", email: "gal@example.com")
        options.comments[id] = (1...2).map {
            FakeComment(
                id: "comSEED000000000\($0)", author: author, text: "note", createdTime: "2026-11-01T10:00:00.000Z")
        }
        try startFake(options: options)
        let (run, session) = try assistant(#""delete""#)
        let before = fake.records.count
        let waiting = session.tool("delete_project", ["project": id, "confirm": true]).structured
        XCTAssertEqual(waiting["status"] as? String, "approval_needed", "\(waiting)")
        let approval = try XCTUnwrap(waiting["approval"] as? String)
        XCTAssertTrue((waiting["diff"] as? String ?? "").contains("\(id): delete ("), "\(waiting)")
        // The comments that go with it are counted for the person (no undo brings them back).
        XCTAssertTrue((waiting["diff"] as? String ?? "").contains("; 2 comments)"), "\(waiting)")
        XCTAssertEqual(fake.records.count, before)

        // Another token is not the person it waits for: the id is not a credential.
        let stranger = try configuredTracker(extra: ["AIRTABLE_TOKEN": "patFAKEstranger00.0123456789abcdef"])
        assertFailure(
            try stranger.run(["approve", approval, "--yes"]), status: 66, "no approval \(approval) waits for you")

        // Off a terminal, approving needs --yes; refused, it says so in plain words and writes nothing.
        assertFailure(
            try run.run(["approve", approval]), status: 64,
            "approve asks before writing, and stdin is not a terminal; pass --yes to approve without asking (nothing was written)"
        )

        let rejected = try run.run(["reject", approval])
        XCTAssertEqual(rejected.status, 0, rejected.stderr)
        XCTAssertEqual(rejected.stdout, "Rejected \(approval); nothing written.\n")
        XCTAssertEqual(session.tool("approval_status", ["id": approval]).structured["status"] as? String, "rejected")
        assertFailure(try run.run(["approve", approval, "--yes"]), status: 66, "was rejected")
        XCTAssertEqual(fake.records.count, before)
        XCTAssertTrue(writes().isEmpty)
    }

    func testWithoutAPolicyStdioWritesAtOnceAndAnUnknownApprovalIsNotFound() throws {
        try startFake()
        let run = tracker()
        let session = try MCPSession(run)
        _ = session.call("initialize", MCPTests.initialize)
        session.notify("notifications/initialized")
        let updated = session.tool("update_project", ["project": id, "notes": "straight through"])
        XCTAssertNil(updated.structured["approval"], "\(updated)")
        XCTAssertEqual(fields(id)["Notes"] as? String, "straight through")
        assertFailure(try run.run(["approve", "aprAAAAAAAAAAAAAA", "--yes"]), status: 66, "no approval")
        assertFailure(try run.run(["approve", "wrtAAAAAAAAAAAAAA"]), status: 64, "not an approval's id")
        XCTAssertEqual(session.tool("approval_status", ["id": "aprAAAAAAAAAAAAAA"]).errorCode, 66)
        // A kind the setting does not know is the configuration's error, named.
        assertFailure(
            try configuredTracker(#""assistants": {"approve": ["udpate"]}"#).run(["list"]), status: 78,
            "\"assistants\" in")
    }
}

/// Approvals through the team's Redis: a plan made on one machine waits on every machine of the person's, and two
/// approvals at once make the write once.
final class TeamApprovalTests: FakeAirtableTestCase {
    func testAPlanWaitsOnEveryMachineAndTwoApprovalsAtOnceWriteOnce() throws {
        let redis = try RedisServer()
        try startFake()
        let policy = #""assistants": {"approve": ["update"]}"#
        let laptop = try configuredTracker(policy, extra: ["TRACKER_REDIS_URL": redis.url()])
        let desktop = try configuredTracker(policy, extra: ["TRACKER_REDIS_URL": redis.url()])
        let session = try MCPSession(laptop)
        _ = session.call("initialize", MCPTests.initialize)
        session.notify("notifications/initialized")
        let id = "rec3g0Xxmw2rw3scs"
        let waiting = session.tool("update_project", ["project": id, "notes": "one write, two approvals"]).structured
        let approval = try XCTUnwrap(waiting["approval"] as? String, "\(waiting)")
        let listed = try desktop.run(["approvals"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.hasPrefix(approval + "\tpending\t"), "the other machine sees it: \(listed.stdout)")

        let results = try runTogether([
            (laptop, ["approve", approval, "--yes"]), (desktop, ["approve", approval, "--yes"]),
        ])
        XCTAssertEqual(results.map(\.status), [0, 0], results.map(\.stderr).joined())
        XCTAssertEqual(results.filter { $0.stdout.hasPrefix("Made") }.count, 1, results.map(\.stdout).joined())
        XCTAssertEqual(fake.recordLog.filter { $0.method == "PATCH" }.count, 1, "made exactly once")
    }
}

/// 2026-07-28's way of asking the person: the call answers `input_required`, and the client calls again with the
/// answer and the state it was given; the state names an approval, which must be this tool's and this person's.
final class InputRequiredApprovalTests: FakeAirtableTestCase {
    func testTheCallMadeAgainWithTheAnswerMakesTheWriteAndTheStateIsBoundToItsTool() throws {
        try startFake()
        let run = try configuredTracker(#""assistants": {"approve": ["update"]}"#)
        let session = try MCPSession(run)
        var meta = MCPTests.modernMeta
        meta["io.modelcontextprotocol/clientCapabilities"] = ["elicitation": ["form": [:]]]
        let id = "rec3g0Xxmw2rw3scs"
        let arguments: [String: Any] = ["project": id, "notes": "asked in 2026-07-28"]
        let first =
            session.call(
                "tools/call", ["name": "update_project", "arguments": arguments, "_meta": meta])["result"]
            as? [String: Any] ?? [:]
        XCTAssertEqual(first["resultType"] as? String, "input_required", "\(first)")
        let asked = (first["inputRequests"] as? [String: Any])?["approve"] as? [String: Any]
        XCTAssertEqual(asked?["method"] as? String, "elicitation/create")
        XCTAssertTrue(((asked?["params"] as? [String: Any])?["message"] as? String ?? "").contains("Notes"))
        let state = try XCTUnwrap(first["requestState"] as? String)
        XCTAssertNotEqual(
            (fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any])?["Notes"] as? String,
            "asked in 2026-07-28", "nothing written before the answer")

        let answer: [String: Any] = ["approve": ["action": "accept"]]
        // The state is an approval of update_project: another tool's call cannot spend it.
        let other =
            session.call(
                "tools/call",
                [
                    "name": "delete_project", "arguments": ["project": id, "confirm": true], "_meta": meta,
                    "requestState": state, "inputResponses": answer,
                ])["result"] as? [String: Any] ?? [:]
        XCTAssertEqual(other.isError, true, "\(other)")
        XCTAssertEqual(other.errorCode, 64)
        XCTAssertEqual(fake.records.count, FakeAirtable.recordedProjects.count, "nothing deleted")

        let made =
            session.call(
                "tools/call",
                [
                    "name": "update_project", "arguments": arguments, "_meta": meta, "requestState": state,
                    "inputResponses": answer,
                ])["result"] as? [String: Any] ?? [:]
        XCTAssertEqual(made["resultType"] as? String, "complete", "\(made)")
        XCTAssertEqual(made.structured["status"] as? String, "applied", "\(made)")
        XCTAssertEqual(
            (fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any])?["Notes"] as? String,
            "asked in 2026-07-28")
        XCTAssertEqual(fake.recordLog.filter { $0.method == "PATCH" }.count, 1)
    }
}
