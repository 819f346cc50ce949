import FakeAirtable
import Foundation
@_spi(Sending) @testable import TrackerNetwork
import TrackerSystem
import XCTest

/// The faces that stay (`mcp`, `board`) and `changes` spend the base's budget on news (docs/contract.md "What changed,
/// not
/// the whole table"): the built binary against the fake, another client writing in between.
final class WhatChangedTests: FakeAirtableTestCase {
    /// Another client of the base: a write sent straight to the fake.
    @discardableResult
    func other(_ method: String, _ table: String, _ body: Any? = nil, query: String = "") throws -> [String: Any] {
        var request = HTTPRequest(
            url: URL(string: fake.endpoint + "/v0/\(fake.options.baseID)/\(table)" + query)!, method: method,
            body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        request.setValue("Bearer \(fake.options.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let transport = try XCTUnwrap(CurlTransport(), "libcurl could not be loaded")
        let done = DispatchSemaphore(value: 0)
        let answer = Locked<[String: Any]>([:])
        Task {
            if case .answered(let reply) = await transport.send(request, fresh: true, timeout: 10) {
                let object = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
                answer.withLock { $0 = object ?? [:] }
            }
            done.signal()
        }
        done.wait()
        return answer.withLock { $0 }
    }

    var projects: String { fake.options.tableID }
    let tasks = "tblFAKEtasks00001"

    func startBigFake(_ configure: (inout FakeAirtable.Options) -> Void = { _ in }) throws {
        var options = FakeAirtable.Options()
        options.tasks = FakeAirtable.generatedTasks(count: 600, projects: 120)
        configure(&options)
        try startFake(records: FakeAirtable.generatedProjects(count: 120), options: options)
    }

    /// The requests the fake answered since `mark`.
    func requests(since mark: Int) -> [FakeAirtable.LogEntry] { Array(fake.recordLog.dropFirst(mark)) }

    func startServer(_ process: TrackerProcess) throws -> MCPSession {
        let session = try MCPSession(process, arguments: ["mcp"])
        _ = session.call("initialize", MCPTests.initialize)
        session.notify("notifications/initialized")
        return session
    }

    func testAnAssistantsListTasksCountsAnotherClientsCreateAndDeleteForOneRequest() throws {
        try startBigFake()
        let session = try startServer(tracker())
        XCTAssertEqual(session.tool("list_tasks", ["all": true]).structured["total"] as? Int, 600)
        var mark = fake.recordLog.count
        XCTAssertEqual(session.tool("list_tasks", ["all": true]).structured["total"] as? Int, 600)
        XCTAssertEqual(requests(since: mark).map(\.path).count, 1, "warm: the webhook's payloads alone")
        let made = try other(
            "POST", tasks, ["fields": ["Name": "Made elsewhere", "Design project": ["rec00000000000001"]]])
        try other("DELETE", tasks, query: "?records[]=recT0000000000002")
        mark = fake.recordLog.count
        let listed = session.tool("list_tasks", ["all": true, "search": "elsewhere"])
        XCTAssertEqual(listed.structured["total"] as? Int, 1, "\(listed)")
        XCTAssertEqual((listed.structured["tasks"] as? [[String: Any]])?.first?["id"] as? String, made["id"] as? String)
        // The payloads, then what changed in each table they name (a new task changes its project's link too).
        XCTAssertEqual(requests(since: mark).count, 3, "\(requests(since: mark).map(\.path))")
        mark = fake.recordLog.count
        XCTAssertEqual(session.tool("list_tasks", ["all": true]).structured["total"] as? Int, 600)
        XCTAssertEqual(requests(since: mark).count, 1)
        XCTAssertEqual(session.finish().status, 0)
    }

    func testAnAssistantsListClientsKeepsTheClientsTableToo() throws {
        try startFake()
        let session = try startServer(tracker())
        let first = session.tool("list_clients")
        let clients = try XCTUnwrap(first.structured["clients"] as? [[String: Any]], "\(first)")
        let some = try XCTUnwrap(clients.first?["id"] as? String)
        var mark = fake.recordLog.count
        XCTAssertEqual(session.tool("list_clients").structured["total"] as? Int, first.structured["total"] as? Int)
        XCTAssertEqual(requests(since: mark).count, 1, "warm: the payloads alone: \(requests(since: mark).map(\.path))")
        try other("PATCH", "tblFAKEclients001", ["records": [["id": some, "fields": ["Name": "Renamed client"]]]])
        mark = fake.recordLog.count
        let after = session.tool("list_clients", ["limit": 50])
        let names = (after.structured["clients"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertTrue(names.contains("Renamed client"), "\(names)")
        XCTAssertEqual(requests(since: mark).count, 2, "the payloads, then the clients' changes")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testWithoutWebhookRightsAnAssistantSeesDeletionsFromAnIdListing() throws {
        try startBigFake { $0.grantsWebhookScope = false }
        let session = try startServer(tracker())
        XCTAssertEqual(session.tool("list_projects", ["limit": 1]).structured["total"] as? Int, 120)
        try other("POST", projects, ["fields": ["Name": "Made elsewhere"]])
        var mark = fake.recordLog.count
        XCTAssertEqual(session.tool("list_projects", ["limit": 1]).structured["total"] as? Int, 121)
        XCTAssertEqual(
            requests(since: mark).count, 1, "one listing of what changed: \(requests(since: mark).map(\.path))")
        XCTAssertTrue(fake.webhookIDs.isEmpty)
        // A project that changes is read again at once; deletions show within five minutes without a webhook (the id
        // listing's interval, BaseCopyTests).
        try other("PATCH", projects, ["records": [["id": "rec00000000000004", "fields": ["Name": "Renamed"]]]])
        mark = fake.recordLog.count
        let renamed = session.tool("list_projects", ["search": "renamed"])
        XCTAssertEqual(renamed.structured["total"] as? Int, 1)
        XCTAssertEqual(requests(since: mark).count, 1)
        XCTAssertEqual(session.finish().status, 0)
    }

    func testChangesAfterThreeChangesSendsThreeRequestsAndMissesNothingWhenTheHookIsGone() throws {
        try startBigFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        try other("PATCH", projects, ["records": [["id": "rec00000000000005", "fields": ["Name": "Renamed five"]]]])
        try other("DELETE", projects, query: "?records[]=rec00000000000007")
        try other("POST", projects, ["fields": ["Name": "Brand new"]])
        var mark = fake.recordLog.count
        let result = try run.run(["changes"])
        XCTAssertEqual(
            Set(result.lines),
            ["Renamed five: renamed from Project 00005", "deleted Project 00007", "added Brand new"],
            result.stderr)
        XCTAssertEqual(requests(since: mark).count, 3, "the hook found, its payloads, one listing of what changed")
        mark = fake.recordLog.count
        XCTAssertEqual(try run.run(["changes"]).stdout, "")
        XCTAssertEqual(requests(since: mark).count, 2, "nothing changed: the hook and its payloads")

        // The hook gone behind tracker's back: made again, the table read whole once, nothing missed.
        fake.expireWebhooks()
        try other("DELETE", projects, query: "?records[]=rec00000000000009")
        XCTAssertEqual(try run.run(["changes"]).lines, ["deleted Project 00009"])
        XCTAssertEqual(fake.webhookIDs.count, 1)
        mark = fake.recordLog.count
        XCTAssertEqual(try run.run(["changes"]).stdout, "")
        XCTAssertEqual(requests(since: mark).count, 2)
    }

    /// An hourly `changes` stopped for a holiday: Airtable disabled the hook after 7 idle days, and it recorded
    /// nothing since. The next run does not trust it: a new hook, the table read whole, the edit reported.
    func testAnHourlyChangesStoppedForAHolidayReportsWhatChangedMeanwhile() throws {
        try startBigFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        let old = try XCTUnwrap(fake.webhookIDs.first)
        fake.letTimePass(days: 9)
        try other(
            "PATCH", projects, ["records": [["id": "rec00000000000005", "fields": ["Name": "Renamed on holiday"]]]])
        let result = try run.run(["changes"])
        XCTAssertEqual(result.lines, ["Renamed on holiday: renamed from Project 00005"], result.stderr)
        let made = try XCTUnwrap(fake.webhookIDs.first { $0 != old }, "a new hook")
        XCTAssertLessThan(fake.webhookSecondsLeft[old] ?? 0, 0, "the old one is listed disabled")
        // News again from the new hook.
        try other("DELETE", projects, query: "?records[]=rec00000000000007")
        XCTAssertEqual(try run.run(["changes"]).lines, ["deleted Project 00007"])
        XCTAssertGreaterThan(fake.webhookSecondsLeft[made] ?? 0, 6 * 86400, "polling keeps it alive")
    }

    /// A snapshot whose header reads as impossible (a cursor of 1e300, a time in 2099) is no mark at all: the table
    /// is read whole and the rename reported, never a trap (exit 132) or a rename missed.
    func testASnapshotWithAnImpossibleCursorOrTimeIsReadWhole() throws {
        try startBigFake()
        let run = tracker()
        let directory = (run.environment["HOME"] ?? "") + "/.local/state/tracker"
        for (index, planted) in [#""cursor":1e300"#, #""since":"2099-01-01T00:00:00.000Z""#].enumerated() {
            XCTAssertEqual(try run.run(["changes"]).status, 0)
            let name = try XCTUnwrap(
                FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".json") })
            let path = directory + "/" + name
            var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
            let key = planted.components(separatedBy: ":").first!
            let header = lines[0].replacingOccurrences(
                of: key + #":("[^"]*"|[0-9.e+]+)"#, with: planted, options: .regularExpression)
            XCTAssertNotEqual(header, lines[0], "the header holds \(key)")
            lines[0] = header
            try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
            let id = String(format: "rec%014d", 20 + index)
            try other("PATCH", projects, ["records": [["id": id, "fields": ["Name": "Renamed \(index)"]]]])
            let result = try run.run(["changes"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(
                result.lines, ["Renamed \(index): renamed from Project \(String(format: "%05d", 20 + index))"])
        }
    }

    func testDoctorSaysWhatKeepsDeletions() throws {
        try startBigFake()
        let run = tracker()
        XCTAssertTrue(try run.run(["doctor"]).stdout.contains("no webhook yet"))
        XCTAssertFalse(fake.recordLog.contains { $0.method == "POST" }, "doctor never makes one")
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        let hook = try XCTUnwrap(fake.webhookIDs.first)
        XCTAssertTrue(try run.run(["doctor"]).stdout.contains("ok        the base's webhook \(hook) tells board, mcp"))
        fake.stop()
        try startBigFake { $0.grantsWebhookScope = false }
        let without = try tracker().run(["doctor", "--json"])
        let checks = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(without.stdout.utf8)) as? [String: Any])?["checks"]
                as? [[String: Any]])
        let deletions = try XCTUnwrap(checks.first { $0["name"] as? String == "deletions" })
        XCTAssertEqual(deletions["ok"] as? Bool, true)
        XCTAssertTrue((deletions["detail"] as? String ?? "").contains("webhook:manage"), "\(deletions)")
    }

    func testChangesWithoutWebhookRightsFindsDeletionsByIds() throws {
        try startBigFake { $0.isBaseCreator = false }
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        try other("DELETE", projects, query: "?records[]=rec00000000000011")
        try other("PATCH", projects, ["records": [["id": "rec00000000000012", "fields": ["Name": "Twelve"]]]])
        let mark = fake.recordLog.count
        XCTAssertEqual(
            Set(try run.run(["changes"]).lines), ["deleted Project 00011", "Twelve: renamed from Project 00012"])
        let sent = requests(since: mark)
        XCTAssertEqual(sent.filter { $0.query.contains("LAST_MODIFIED_TIME") }.count, 1)
        XCTAssertEqual(sent.filter { $0.query.contains("fields") }.count, 2, "the ids, two pages of 100")
    }

    func testTheBoardShowsAnotherClientsChangeAtTheNextRefreshForTwoRequests() throws {
        try startBigFake()
        let board = try BoardSession(tracker(), ["board", "--every", "5"], width: 200, height: 50)
        _ = board.wait(for: "deletions by webhook")
        XCTAssertTrue(board.wait(for: "Project 00002").contains("Project 00002"))
        try other("PATCH", projects, ["records": [["id": "rec00000000000002", "fields": ["Name": "Seen elsewhere"]]]])
        let mark = fake.recordLog.count
        let screen = board.wait(for: "Seen elsewhere", timeout: 15)
        XCTAssertTrue(screen.contains("Seen elsewhere"), screen)
        let sent = requests(since: mark).map(\.path)
        XCTAssertLessThanOrEqual(sent.count, 2, "the payloads, then the projects' changes: \(sent)")
        // A project made and one deleted elsewhere: on the board, and off it, at the next refresh.
        XCTAssertTrue(screen.contains("Project 00006"), screen)
        let due = try XCTUnwrap(
            (fake.records.first { ($0["id"] as? String) == "rec00000000000002" }?["fields"] as? [String: Any])?[
                "Due date"] as? String)
        try other("POST", projects, ["fields": ["Name": "Made elsewhere", "Due date": due]])
        try other("DELETE", projects, query: "?records[]=rec00000000000006")
        let next = board.wait(for: "Made elsewhere", timeout: 15)
        XCTAssertTrue(next.contains("Made elsewhere"), next)
        XCTAssertFalse(next.contains("Project 00006"), next)
        board.press("q")
        XCTAssertEqual(board.status(), 0)
        board.close()
    }
}
