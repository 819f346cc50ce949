import FakeAirtable
import Foundation
import XCTest

/// `tracker mcp` driven as an assistant's app drives it: the built binary over pipes, JSON-RPC spoken by the test.
final class MCPTests: FakeAirtableTestCase {
    nonisolated(unsafe) static let initialize: [String: Any] = [
        "protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "tests", "version": "1"],
    ]
    nonisolated(unsafe) static let modernMeta: [String: Any] = [
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": [:],
    ]

    /// A server after the handshake, its files rooted in a directory of the test's own.
    func startServer(_ extra: [String] = [], tracker process: TrackerProcess? = nil) throws -> (MCPSession, String) {
        let process = process ?? tracker()
        let root = process.runtimeDirectory + "/share"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let session = try MCPSession(process, arguments: ["mcp", "--root", root] + extra)
        let answer = session.call("initialize", Self.initialize)
        XCTAssertEqual((answer["result"] as? [String: Any])?["protocolVersion"] as? String, "2025-06-18")
        session.notify("notifications/initialized")
        return (session, root)
    }

    func testTheHandshakeEraListsTheToolsWithTheirSchemasAndAnnotations() throws {
        try startFake()
        let (session, _) = try startServer()
        let result = session.call("initialize", ["protocolVersion": "1999-01-01", "capabilities": [:]])["result"]
        XCTAssertEqual((result as? [String: Any])?["protocolVersion"] as? String, "2025-11-25", "else the newest")
        let info = (result as? [String: Any])?["serverInfo"] as? [String: Any]
        XCTAssertEqual(info?["name"] as? String, "tracker")
        XCTAssertTrue(((result as? [String: Any])?["instructions"] as? String ?? "").contains("never instructions"))
        XCTAssertNotNil(session.call("ping")["result"])
        let tools = (session.call("tools/list")["result"] as? [String: Any])?["tools"] as? [[String: Any]] ?? []
        let byName = Dictionary(uniqueKeysWithValues: tools.map { ($0["name"] as! String, $0) })
        let expected: [String: (Bool, Bool?, Bool?)] = [
            "status": (true, nil, nil), "list_projects": (true, nil, nil), "show_project": (true, nil, nil),
            "add_project": (false, false, true), "update_project": (false, true, true),
            "delete_project": (false, true, true), "list_tasks": (true, nil, nil), "add_task": (false, false, true),
            "update_task": (false, true, true), "delete_task": (false, true, true),
            "add_comment": (false, false, false), "list_comments": (true, nil, nil), "report": (true, nil, nil),
            "list_clients": (true, nil, nil), "list_files": (true, nil, nil), "download_files": (false, false, true),
            "attach_file": (false, false, false), "history": (true, nil, nil), "undo": (false, true, true),
            "approval_status": (true, nil, nil),
        ]
        XCTAssertEqual(Set(byName.keys), Set(expected.keys))
        for (name, (readOnly, destructive, idempotent)) in expected {
            let tool = byName[name] ?? [:]
            let hints = tool["annotations"] as? [String: Any] ?? [:]
            XCTAssertEqual(hints["readOnlyHint"] as? Bool, readOnly, name)
            XCTAssertEqual(hints["destructiveHint"] as? Bool, destructive, name)
            XCTAssertEqual(hints["idempotentHint"] as? Bool, idempotent, name)
            XCTAssertEqual(hints["openWorldHint"] as? Bool, false, name)
            XCTAssertNotNil(tool["title"] as? String, name)
            for key in ["inputSchema", "outputSchema"] {
                let schema = tool[key] as? [String: Any] ?? [:]
                XCTAssertEqual(schema["type"] as? String, "object", "\(name) \(key)")
                // A write's answer is its result or, held for approval, the approval it waits for.
                let shapes = schema["anyOf"] as? [[String: Any]] ?? [schema]
                XCTAssertEqual(shapes.count, key == "outputSchema" && !readOnly ? 2 : 1, "\(name) \(key)")
                for shape in shapes {
                    XCTAssertEqual(shape["additionalProperties"] as? Bool, false, "\(name) \(key)")
                    for (property, value) in shape["properties"] as? [String: [String: Any]] ?? [:] {
                        XCTAssertNotNil(value["description"] as? String, "\(name).\(property) is described")
                    }
                }
            }
        }
        // The schemas come from the commands' flags: list's filters, typed.
        let list = (byName["list_projects"]?["inputSchema"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
        for argument in [
            "overdue", "due_within", "category", "lead", "mine", "client", "search", "view", "sort", "limit",
        ] {
            XCTAssertNotNil(list[argument], "list_projects takes \(argument)")
        }
        XCTAssertEqual((list["due_within"] as? [String: Any])?["type"] as? String, "integer")
        XCTAssertEqual((list["overdue"] as? [String: Any])?["type"] as? String, "boolean")
        let report = (byName["report"]?["inputSchema"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
        XCTAssertEqual((report["by"] as? [String: Any])?["enum"] as? [String], ["none", "lead", "category"])
        XCTAssertNil(list["format"], "the output is the tool's to choose")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testTheModernEraDiscoversAndChecksEachRequestsMeta() throws {
        try startFake()
        let session = try MCPSession(tracker())
        let discovered = session.call("server/discover", ["_meta": Self.modernMeta])["result"] as? [String: Any] ?? [:]
        XCTAssertEqual(discovered["resultType"] as? String, "complete")
        XCTAssertEqual(discovered["supportedVersions"] as? [String], ["2026-07-28"])
        XCTAssertNotNil((discovered["_meta"] as? [String: Any])?["io.modelcontextprotocol/serverInfo"])
        let listed = session.call("tools/list", ["_meta": Self.modernMeta])["result"] as? [String: Any] ?? [:]
        XCTAssertEqual(listed["resultType"] as? String, "complete")
        XCTAssertEqual(listed["cacheScope"] as? String, "private")
        XCTAssertNotNil(listed["ttlMs"] as? Int)
        XCTAssertEqual(session.call("tools/list").rpcErrorCode, -32602, "no protocol version and no handshake")
        let old: [String: Any] = [
            "io.modelcontextprotocol/protocolVersion": "1900-01-01", "io.modelcontextprotocol/clientCapabilities": [:],
        ]
        let unsupported = session.call("tools/list", ["_meta": old])
        XCTAssertEqual(unsupported.rpcErrorCode, -32022)
        let data = (unsupported["error"] as? [String: Any])?["data"] as? [String: Any]
        XCTAssertEqual(data?["requested"] as? String, "1900-01-01")
        XCTAssertEqual(data?["supported"] as? [String], ["2026-07-28"])
        let noCapabilities = ["io.modelcontextprotocol/protocolVersion": "2026-07-28"]
        XCTAssertEqual(session.call("tools/list", ["_meta": noCapabilities]).rpcErrorCode, -32602)
        let called =
            session.call("tools/call", ["name": "list_projects", "arguments": ["limit": 3], "_meta": Self.modernMeta])[
                "result"] as? [String: Any] ?? [:]
        XCTAssertEqual(called["resultType"] as? String, "complete")
        XCTAssertEqual(called.structured["total"] as? Int, 16)
        XCTAssertEqual((called.structured["projects"] as? [Any])?.count, 3)
        XCTAssertEqual(called.structured["truncated"] as? Bool, true)
        XCTAssertEqual(session.finish().status, 0)
    }

    func testMalformedMessagesAreAnsweredAndTheServerGoesOn() throws {
        try startFake()
        let (session, _) = try startServer()
        session.sendLine("this is not json")
        session.sendLine(#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        session.sendLine(#"{"jsonrpc":"2.0","id":2}"#)
        session.sendLine(String(repeating: "x", count: 4 << 20 + 10))
        XCTAssertEqual(session.call("no/such/method").rpcErrorCode, -32601)
        XCTAssertEqual(session.call("tools/call", ["name": "no_such_tool", "arguments": [:]]).rpcErrorCode, -32602)
        XCTAssertNotNil(session.call("ping")["result"], "still answering")
        let codes = session.received.compactMap { message -> Int? in
            guard message["id"] is NSNull else { return nil }
            return message.rpcErrorCode
        }
        XCTAssertEqual(codes, [-32700, -32600, -32600], "not JSON, a batch, the 4 MiB line: each with a null id")
        let missing = session.received.first { MCPSession.same($0["id"], 2) }
        XCTAssertEqual(missing?.rpcErrorCode, -32600, "a request without a method")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testEveryToolRunsItsCommand() throws {
        try startFake()
        let (session, root) = try startServer()
        XCTAssertFalse(session.tool("status").isError)
        let listed = session.tool("list_projects", ["overdue": true, "limit": 2])
        XCTAssertFalse(listed.isError, "\(listed)")
        let overdue = try tracker().run(["list", "--overdue", "--format", "ndjson"]).lines.count
        XCTAssertEqual(listed.structured["total"] as? Int, overdue, "the total is counted by tracker")
        let shown = session.tool("show_project", ["project": "CMCA brand identity", "comments": true])
        XCTAssertEqual(shown.structured["name"] as? String, "CMCA brand identity")
        // Who the client is, in the same answer: names beside the ids.
        let clientIDs = try XCTUnwrap(shown.structured["clients"] as? [String])
        XCTAssertFalse(clientIDs.isEmpty)
        let clientNames = try XCTUnwrap(shown.structured["clientNames"] as? [String], "\(shown.structured)")
        let named = fake.records(inTable: "Clients").filter { clientIDs.contains($0["id"] as? String ?? "") }.compactMap
        {
            ($0["fields"] as? [String: Any])?["Name"] as? String
        }
        XCTAssertEqual(clientNames, named)
        XCTAssertNotNil((shown.structured["tasks"] as? [String: Any])?["items"] as? [Any], "its tasks")
        XCTAssertNotNil(shown.structured["comments"] as? [Any])
        let text = ((shown["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        XCTAssertEqual(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary, shown.structured as NSDictionary,
            "the same JSON as text")

        let added = session.tool("add_project", ["name": "Assistant's project", "due": "2026-12-01", "notes": "hi"])
        XCTAssertEqual(added.structured["created"] as? Bool, true, "\(added)")
        let id = try XCTUnwrap(added.structured["id"] as? String)
        let updated = session.tool("update_project", ["project": id, "complete": true, "due": "+1w"])
        XCTAssertEqual(updated.structured["complete"] as? Bool, true, "\(updated)")
        let task = session.tool("add_task", ["project": id, "name": "Print proofs", "estimate": "1.5"])
        XCTAssertEqual(task.structured["created"] as? Bool, true, "\(task)")
        let taskID = try XCTUnwrap(task.structured["id"] as? String)
        let ticked = session.tool("update_task", ["task": taskID, "complete": true])
        XCTAssertEqual(ticked.structured["complete"] as? Bool, true, "\(ticked)")
        let renamed = session.tool("update_task", ["task": taskID, "name": "Print the proofs", "complete": false])
        XCTAssertEqual(renamed.structured["name"] as? String, "Print the proofs", "\(renamed)")
        XCTAssertEqual(renamed.structured["complete"] as? Bool, false, "\(renamed)")
        let tasks = session.tool("list_tasks", ["project": id])
        XCTAssertEqual(tasks.structured["total"] as? Int, 1, "\(tasks)")
        let comment = session.tool("add_comment", ["project": id, "text": "Proofs approved"])
        XCTAssertEqual(comment.structured["text"] as? String, "Proofs approved", "\(comment)")
        let comments = session.tool("list_comments", ["project": id])
        XCTAssertEqual(comments.structured["total"] as? Int, 1, "\(comments)")
        XCTAssertFalse(session.tool("report", ["days": 14]).isError)
        let clients = session.tool("list_clients", ["limit": 1])
        XCTAssertEqual((clients.structured["clients"] as? [Any])?.count, 1, "\(clients)")

        try Data("mock-up".utf8).write(to: URL(fileURLWithPath: root + "/mock-up.png"))
        let attached = session.tool("attach_file", ["project": id, "path": "mock-up.png"])
        XCTAssertEqual(attached.structured["total"] as? Int, 1, "\(attached)")
        let files = session.tool("list_files", ["project": id])
        XCTAssertEqual(
            ((files.structured["files"] as? [[String: Any]])?.first)?["filename"] as? String, "mock-up.png", "\(files)")
        try FileManager.default.createDirectory(atPath: root + "/downloads", withIntermediateDirectories: true)
        let downloaded = session.tool("download_files", ["project": id, "directory": "downloads"])
        XCTAssertEqual(downloaded.structured["files"] as? [String], [root + "/downloads/mock-up.png"], "\(downloaded)")
        let again = session.tool("download_files", ["project": id, "directory": "downloads"])
        XCTAssertEqual(again.structured["total"] as? Int, 0, "already there: \(again)")
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: root + "/downloads/mock-up.png")), Data("mock-up".utf8))

        let deletedTask = session.tool("delete_task", ["task": taskID, "confirm": true])
        XCTAssertEqual(deletedTask.structured["deleted"] as? [String], [taskID], "\(deletedTask)")
        let deleted = session.tool("delete_project", ["project": id, "confirm": true])
        XCTAssertEqual(deleted.structured["total"] as? Int, 1, "\(deleted)")
        XCTAssertFalse(fake.records.contains { $0["id"] as? String == id })
        XCTAssertEqual(session.finish().status, 0)
        XCTAssertFalse(session.lines.joined().contains(fake.options.token), "the token never appears")
    }

    func testARepeatedCreateWhoseAnswerWasLostMakesOneRecord() throws {
        try startFake()
        let (session, _) = try startServer()
        XCTAssertFalse(session.tool("list_projects", ["limit": 1]).isError, "warm")
        // The create's answer is lost after Airtable applied it: tracker looks before sending it again.
        fake.inject(.applyThenDrop, onRequest: 2)
        let first = session.tool("add_project", ["name": "Lost answer", "due": "2026-12-01"])
        let second = session.tool("add_project", ["name": "Lost answer", "due": "2026-12-01"])
        XCTAssertFalse(second.isError, "\(second)")
        XCTAssertEqual(second.structured["created"] as? Bool, false, "the repeated call found it")
        XCTAssertEqual(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Lost answer" }.count, 1)
        if !first.isError { XCTAssertEqual(first.structured["id"] as? String, second.structured["id"] as? String) }
        XCTAssertEqual(
            fake.recordLog.filter { $0.method == "POST" && !$0.path.contains("/webhooks") }.count, 1, "sent once")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testACancelledCallIsNeverAnsweredNorSentAgainAndTheServerGoesOn() throws {
        try startFake()
        let (session, _) = try startServer()
        XCTAssertFalse(session.tool("list_projects", ["limit": 1]).isError, "warm")
        let before = fake.recordRequestsReceived
        fake.inject(.delay(seconds: 2), onRequest: 1)
        let slow = session.request("tools/call", ["name": "list_projects", "arguments": [:]])
        let deadline = Date().addingTimeInterval(5)
        while fake.recordRequestsReceived == before && Date() < deadline { usleep(5_000) }
        session.notify("notifications/cancelled", ["requestId": slow, "reason": "the person changed their mind"])
        XCTAssertNotNil(session.call("ping", timeout: 5)["result"], "still answering")
        XCTAssertNil(session.answer(to: slow, timeout: 3), "no answer for a cancelled call")
        XCTAssertEqual(fake.recordRequestsReceived, before + 1, "nothing sent again")
        XCTAssertFalse(session.tool("list_projects", ["limit": 1]).isError, "later calls are served")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testASlowCallDoesNotHoldUpAnother() throws {
        try startFake()
        let (session, _) = try startServer()
        XCTAssertFalse(session.tool("list_projects", ["limit": 1]).isError, "warm")
        fake.inject(.delay(seconds: 2), onRequest: 1)
        let slow = session.request("tools/call", ["name": "list_projects", "arguments": [:]])
        let before = fake.recordRequestsReceived
        let deadline = Date().addingTimeInterval(5)
        while fake.recordRequestsReceived == before && Date() < deadline { usleep(5_000) }
        let quick = session.request(
            "tools/call", ["name": "show_project", "arguments": ["project": "Coffee packaging"]])
        XCTAssertNotNil(session.answer(to: quick, timeout: 10))
        XCTAssertNotNil(session.answer(to: slow, timeout: 10))
        let order = session.received.compactMap { $0["id"] as? Int }
        XCTAssertLessThan(
            try XCTUnwrap(order.firstIndex(of: quick as! Int)), try XCTUnwrap(order.firstIndex(of: slow as! Int)),
            "the second call answers first")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testTheEndOfStdinEndsTheServerWithinTwoSecondsEvenMidCall() throws {
        try startFake()
        let (session, _) = try startServer()
        fake.inject(.delay(seconds: 20), onRequest: 1)
        session.request("tools/call", ["name": "list_projects", "arguments": [:]])
        usleep(300_000)
        let (status, seconds) = session.finish()
        XCTAssertEqual(status, 0)
        XCTAssertLessThan(seconds, 2, "calls in flight get 1.5 s, then it exits: \(seconds) s")
    }

    func testFilesStayInsideTheRoot() throws {
        try startFake()
        var process = tracker()
        process.environment["HOME"] = process.runtimeDirectory
        let (session, root) = try startServer(tracker: process)
        let outside = process.runtimeDirectory + "/secret.txt"
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside))
        try Data("KEY=1".utf8).write(to: URL(fileURLWithPath: root + "/.env"))
        try FileManager.default.createSymbolicLink(atPath: root + "/link.txt", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: root + "/env.txt", withDestinationPath: root + "/.env")
        for path in ["../secret.txt", outside, "link.txt", ".env", "env.txt", "a/../../secret.txt"] {
            let result = session.tool("attach_file", ["project": "Coffee packaging", "path": path])
            XCTAssertTrue(result.isError, path)
            XCTAssertEqual(result.errorCode, 64, "\(path): \(result)")
        }
        for directory in ["..", "/tmp", ".git"] {
            let result = session.tool("download_files", ["project": "Coffee packaging", "directory": directory])
            XCTAssertEqual(result.errorCode, 64, "\(directory): \(result)")
        }
        XCTAssertFalse(fake.log.contains { $0.path.hasSuffix("/uploadAttachment") }, "nothing was sent")
        XCTAssertFalse(FileManager.default.fileExists(atPath: process.runtimeDirectory + "/.git"))
        XCTAssertEqual(session.finish().status, 0)
    }

    func testTheHomeDirectoryIsNoRoot() throws {
        try startFake()
        let process = tracker()
        try Data("x".utf8).write(to: URL(fileURLWithPath: process.runtimeDirectory + "/id_ed25519"))
        // Started in HOME, with no --root: the file tools say to give one.
        let session = try MCPSession(process, arguments: ["mcp"])
        _ = session.call("initialize", Self.initialize)
        let result = session.tool("attach_file", ["project": "Coffee packaging", "path": "id_ed25519"])
        XCTAssertEqual(result.errorCode, 64, "\(result)")
        XCTAssertTrue(result.errorMessage.contains("--root"), result.errorMessage)
        XCTAssertFalse(fake.log.contains { $0.path.hasSuffix("/uploadAttachment") })
        XCTAssertEqual(session.finish().status, 0)
    }

    func testWhatAnAssistantMustNotDo() throws {
        try startFake()
        let (session, _) = try startServer()
        let guessed = session.tool("update_project", ["project": "coffee", "complete": true])
        XCTAssertEqual(guessed.errorCode, 66, "\(guessed)")
        XCTAssertTrue(guessed.errorMessage.contains("coffee"), guessed.errorMessage)
        let text = ((guessed["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        XCTAssertTrue(text.contains("Did you mean \"Coffee packaging\"?"), text)
        let unconfirmed = session.tool("delete_project", ["project": "Coffee packaging"])
        XCTAssertEqual(unconfirmed.errorCode, 64, "\(unconfirmed)")
        let refused = session.tool("delete_project", ["project": "Coffee packaging", "confirm": false])
        XCTAssertEqual(refused.errorCode, 64)
        XCTAssertFalse(fake.recordLog.contains { $0.method == "DELETE" || $0.method == "PATCH" }, "nothing written")
        let unknown = session.tool("list_projects", ["colour": "red"])
        XCTAssertEqual(unknown.errorCode, 64)
        XCTAssertTrue(unknown.errorMessage.contains("colour"), unknown.errorMessage)
        let wrongType = session.tool("list_projects", ["due_within": "soon"])
        XCTAssertEqual(wrongType.errorCode, 64)
        XCTAssertEqual(session.tool("list_projects", ["limit": 5000]).errorCode, 64)
        XCTAssertEqual(session.finish().status, 0)
    }

    func testReadOnlyListsAndServesTheReadToolsAlone() throws {
        try startFake()
        let (session, _) = try startServer(["--read-only"])
        let tools = (session.call("tools/list")["result"] as? [String: Any])?["tools"] as? [[String: Any]] ?? []
        XCTAssertFalse(tools.isEmpty)
        for tool in tools {
            XCTAssertEqual((tool["annotations"] as? [String: Any])?["readOnlyHint"] as? Bool, true, "\(tool["name"]!)")
        }
        let refused = session.call("tools/call", ["name": "add_project", "arguments": ["name": "x", "due": "today"]])
        XCTAssertEqual(refused.rpcErrorCode, -32602)
        XCTAssertFalse(fake.recordLog.contains { $0.method != "GET" })
        XCTAssertEqual(session.finish().status, 0)
    }

    func testProgressIsReportedWhileAListingPages() throws {
        var options = FakeAirtable.Options()
        options.latency = 0.3
        try startFake(records: FakeAirtable.generatedProjects(count: 450), options: options)
        let (session, _) = try startServer()
        let result = session.tool("list_projects", ["limit": 10], meta: ["progressToken": "p1"])
        XCTAssertEqual(result.structured["total"] as? Int, 450)
        XCTAssertEqual((result.structured["projects"] as? [Any])?.count, 10)
        let progress = session.received.filter { $0["method"] as? String == "notifications/progress" }
        XCTAssertGreaterThanOrEqual(progress.count, 2, "\(progress)")
        let counts = progress.compactMap { ($0["params"] as? [String: Any])?["progress"] as? Int }
        XCTAssertEqual(counts, counts.sorted(), "progress only grows")
        XCTAssertEqual(session.finish().status, 0)
    }

    func testTheTokenNeverReachesTheAssistantEvenFromTheBase() throws {
        var records = FakeAirtable.recordedProjects
        records.append([
            "id": "recLEAKleak000001", "createdTime": "2026-01-01T00:00:00.000Z",
            "fields": ["Name": "Leak \(FakeAirtable.Options().token)", "Due date": "2026-12-01"],
        ])
        try startFake(records: records)
        let (session, _) = try startServer()
        let listed = session.tool("list_projects", ["search": "Leak"])
        XCTAssertEqual(listed.structured["total"] as? Int, 1, "\(listed)")
        let failed = session.tool("show_project", ["project": "Leak \(fake.options.token) and more"])
        XCTAssertTrue(failed.isError)
        XCTAssertEqual(session.finish().status, 0)
        let everything = session.lines.joined(separator: "\n") + session.stderr
        XCTAssertFalse(everything.contains(fake.options.token), "masked on both streams")
        XCTAssertTrue(session.lines.joined().contains("pat…"), "shown masked")
    }

    func testSIGTERMAndSIGINTEndTheServerAsTheEndOfInputDoes() throws {
        try startFake()
        for stop in ["SIGTERM", "SIGINT"] {
            let (session, _) = try startServer()
            XCTAssertNotNil(session.call("ping")["result"])
            let started = Date()
            if stop == "SIGTERM" { session.process.terminate() } else { session.process.interrupt() }
            session.process.waitUntilExit()
            XCTAssertEqual(session.process.terminationReason, .exit, stop)
            XCTAssertEqual(session.process.terminationStatus, 0, stop)
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, stop)
            XCTAssertEqual(session.finish().status, 0)
        }
    }

    func testTheServerSharesTheMachinesBudgetWithOtherTrackerProcesses() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        try startFake(records: FakeAirtable.generatedProjects(count: 300), options: options)
        let shared = tracker()
        let (session, _) = try startServer(tracker: shared)
        // A listing of three pages from the command line, and one from the assistant, at once: twelve requests.
        let runs = try (0..<3).map { _ in try shared.start(["list"]) }
        let ids = (0..<3).map { _ in
            session.request("tools/call", ["name": "list_projects", "arguments": ["limit": 1]])
        }
        for id in ids {
            XCTAssertEqual(
                (session.answer(to: id, timeout: 30)?["result"] as? [String: Any])?.structured["total"] as? Int, 300)
        }
        for (process, out, _) in runs {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        // Nine for the command line's three listings; the server reads the table once into its copy (three pages,
        // after finding no webhook and making one), and its other calls share that read. On a loaded machine a call
        // may reach the server only after that read is done: it then asks the webhook what changed (one request), never
        // reads the table again (three).
        let requests = fake.recordLog.count
        XCTAssertTrue((14...16).contains(requests), "\(requests) requests: \(fake.recordLog.map(\.path))")
        XCTAssertFalse(fake.recordLog.contains { $0.status == 429 }, "\(fake.recordLog.map(\.status))")
        let times = fake.recordLog.map(\.time).sorted()
        for (index, time) in times.enumerated() {
            XCTAssertLessThanOrEqual(times[index...].prefix { $0 < time + 1 }.count, 5)
        }
        XCTAssertEqual(session.finish().status, 0)
    }
}

extension MCPTests {
    func testProgressIsReportedWhileFilesMove() throws {
        try startFake()
        let (session, root) = try startServer()
        // Half a megabyte each way: progress in bytes, with the total, ending at the whole.
        let bytes = Data((0..<(512 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: root + "/big.png"))
        func progress(_ token: String) -> [[String: Any]] {
            session.received.filter {
                $0["method"] as? String == "notifications/progress"
                    && ($0["params"] as? [String: Any])?["progressToken"] as? String == token
            }.compactMap { $0["params"] as? [String: Any] }
        }
        let attached = session.tool(
            "attach_file", ["project": "Coffee packaging", "path": "big.png"], meta: ["progressToken": "up"])
        XCTAssertFalse(attached.isError, "\(attached)")
        let up = progress("up")
        XCTAssertFalse(up.isEmpty, "attach_file sends progress")
        XCTAssertEqual(up.last?["progress"] as? Int, bytes.count, "\(up)")
        XCTAssertTrue(up.allSatisfy { $0["total"] as? Int == bytes.count }, "\(up)")
        try FileManager.default.createDirectory(atPath: root + "/downloads", withIntermediateDirectories: true)
        let downloaded = session.tool(
            "download_files", ["project": "Coffee packaging", "directory": "downloads"], meta: ["progressToken": "down"]
        )
        XCTAssertFalse(downloaded.isError, "\(downloaded)")
        let down = progress("down")
        XCTAssertFalse(down.isEmpty, "download_files sends progress")
        let counts = down.compactMap { $0["progress"] as? Int }
        XCTAssertEqual(counts, counts.sorted(), "progress only grows")
        XCTAssertEqual(counts.last, down.last?["total"] as? Int, "it ends at the whole: \(down)")
        XCTAssertEqual(session.finish().status, 0)
    }
}

extension MCPTests {
    func testADigestsListsAreBoundedWithTheirTotals() throws {
        try startFake(records: FakeAirtable.recordedProjects + FakeAirtable.generatedProjects(count: 300))
        let (session, _) = try startServer()
        let overdue = try tracker().run(["report", "--format", "json"])
        let whole = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(overdue.stdout.utf8)) as? [String: Any])
        let sections = try XCTUnwrap(whole["sections"] as? [String: [Any]])
        let report = session.tool("report")
        XCTAssertFalse(report.isError, "\(report)")
        let bounded = try XCTUnwrap(report.structured["sections"] as? [String: [String: Any]], "\(report.structured)")
        XCTAssertEqual(Set(bounded.keys), Set(sections.keys))
        for (name, items) in sections {
            let section = try XCTUnwrap(bounded[name])
            XCTAssertEqual(section["total"] as? Int, items.count, name)
            XCTAssertEqual((section["items"] as? [Any])?.count, min(4, items.count), name)
            XCTAssertEqual(section["truncated"] as? Bool, items.count > 4, name)
        }
        XCTAssertGreaterThan(sections["overdue"]?.count ?? 0, 4, "the base has more overdue than one answer shows")
        // More on request, every one with limit.
        let more = session.tool("report", ["limit": 1000])
        let all = (more.structured["sections"] as? [String: [String: Any]])?["overdue"]
        XCTAssertEqual((all?["items"] as? [Any])?.count, sections["overdue"]?.count)
        XCTAssertEqual(all?["truncated"] as? Bool, false)
        let status = session.tool("status")
        XCTAssertFalse(status.isError, "\(status)")
        for key in ["projects", "tasks"] {
            let list = try XCTUnwrap(status.structured[key] as? [String: Any], "\(key): \(status.structured)")
            XCTAssertNotNil(list["total"] as? Int)
            XCTAssertLessThanOrEqual((list["items"] as? [Any])?.count ?? 99, 4)
        }
        let listed = session.tool("list_projects")
        XCTAssertEqual((listed.structured["projects"] as? [Any])?.count, 7, "a listing's default is small too")
        XCTAssertEqual(listed.structured["total"] as? Int, try tracker().run(["list"]).lines.count)
        XCTAssertEqual(session.finish().status, 0)
    }
}
