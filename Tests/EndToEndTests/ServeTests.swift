import FakeAirtable
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `tracker serve` end to end: the built binary over HTTP against the fake, two persons signed in through serve's
/// OAuth (chained to the fake's Airtable OAuth) besides the server's own token.
final class ServeTests: FakeAirtableTestCase {
    /// Alice's and Bob's own Airtable tokens: never a bearer serve takes.
    static let alicePAT = "patFAKEalice00000.fakefakefakefakefakefakefakefakefakefakefakefakefakefakefakefake"
    static let bobPAT = "patFAKEbob000000.fakefakefakefakefakefakefakefakefakefakefakefakefakefakefakefake0"
    static let aliceID = "usrALICE000000001"
    static let bobID = "usrBOB00000000002"
    /// serve's access tokens for them, once signed in.
    private var alice = ""
    private var bob = ""

    private func startServe(_ arguments: [String] = [], latency: Double = 0, signIn: Bool = true) throws -> ServeProcess
    {
        var options = FakeAirtable.Options()
        options.persons = [Self.alicePAT: Self.aliceID, Self.bobPAT: Self.bobID]
        options.oauth = FakeOAuthIntegration()
        options.latency = latency
        try startFake(options: options)
        let serve = try ServeProcess(try configuredTracker(ServeSignInClient.serveSetting(fake)), arguments: arguments)
        if signIn {
            let flow = ServeSignInClient(servePort: serve.port)
            alice = try flow.signIn(as: Self.aliceID).access
            bob = try flow.signIn(as: Self.bobID).access
        }
        return serve
    }

    private static var initialize: [String: Any] {
        [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": [
                "protocolVersion": "2025-11-25", "capabilities": [String: Any](),
                "clientInfo": ["name": "test", "version": "1"],
            ],
        ]
    }

    private static func modern(_ id: Int, _ method: String, _ params: [String: Any] = [:]) -> [String: Any] {
        var params = params
        params["_meta"] = [
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": [String: Any](),
        ]
        return ["jsonrpc": "2.0", "id": id, "method": method, "params": params]
    }

    private static func call(_ id: Int, _ tool: String, _ arguments: [String: Any]) -> [String: Any] {
        ["jsonrpc": "2.0", "id": id, "method": "tools/call", "params": ["name": tool, "arguments": arguments]]
    }

    /// No bearer, an Airtable token (the person's own: passing it on is what the MCP specification forbids), or
    /// anything serve did not issue: 401 with the challenge naming the protected resource's metadata, which is served
    /// and names serve as the authorization server (broken by a server that takes a person's Airtable token).
    func testOnlyServesOwnTokensAreTakenAndTheMetadataSaysWhereToSignIn() throws {
        let serve = try startServe(signIn: false)
        let metadataURL = "http://127.0.0.1:\(serve.port)/.well-known/oauth-protected-resource/mcp"
        for token in [nil, Self.alicePAT, fake.options.token, "not-a-token-serve-issued"] {
            let refused = RawHTTP.rpc(port: serve.port, Self.initialize, token: token)
            XCTAssertEqual(refused.status, 401, "\(token ?? "no bearer"): \(refused.text)")
            XCTAssertEqual(
                refused.headers["www-authenticate"],
                "Bearer resource_metadata=\"\(metadataURL)\", scope=\"tracker:read tracker:write\"")
        }
        XCTAssertFalse(fake.log.contains { $0.user == Self.aliceID }, "Alice's token was sent to Airtable")
        let metadata = RawHTTP.request(
            port: serve.port, method: "GET", path: "/.well-known/oauth-protected-resource/mcp")
        XCTAssertEqual(metadata.status, 200)
        XCTAssertEqual(metadata.json["resource"] as? String, "http://127.0.0.1:\(serve.port)/mcp")
        XCTAssertEqual(metadata.json["authorization_servers"] as? [String], ["http://127.0.0.1:\(serve.port)"])
        XCTAssertEqual(metadata.json["bearer_methods_supported"] as? [String], ["header"])
        let server = RawHTTP.request(port: serve.port, method: "GET", path: "/.well-known/oauth-authorization-server")
        XCTAssertEqual(server.json["issuer"] as? String, "http://127.0.0.1:\(serve.port)")
        XCTAssertEqual(server.json["code_challenge_methods_supported"] as? [String], ["S256"])
        XCTAssertEqual(server.json["token_endpoint"] as? String, "http://127.0.0.1:\(serve.port)/token")
        XCTAssertFalse(serve.stderr.contains(Self.alicePAT), "a token in the log")
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// Two persons through one server, one in each protocol era: each write goes out under the person's own token, so
    /// Airtable's history names them; the log names them by user id and holds no token (broken by writes under the
    /// server's token: the fake saw the server's user create both).
    func testEachPersonWritesUnderTheirOwnToken() throws {
        let serve = try startServe()
        let opened = RawHTTP.rpc(port: serve.port, Self.initialize, token: alice)
        XCTAssertEqual(opened.status, 200, opened.text)
        let session = try XCTUnwrap(opened.headers["mcp-session-id"])
        let alices = RawHTTP.rpc(
            port: serve.port, Self.call(2, "add_project", ["name": "Alice's poster", "due": "2026-12-24"]),
            token: alice, session: session)
        XCTAssertEqual(alices.status, 200, alices.text)
        let bobs = RawHTTP.rpc(
            port: serve.port,
            Self.modern(
                3, "tools/call", ["name": "add_project", "arguments": ["name": "Bob's leaflet", "due": "2026-12-31"]]),
            token: bob)
        XCTAssertEqual(bobs.status, 200, bobs.text)
        let creates = fake.recordLog.filter { $0.method == "POST" && !$0.path.contains("webhooks") }
        let alicesCreate = creates.first { $0.body.contains("Alice's poster") }
        let bobsCreate = creates.first { $0.body.contains("Bob's leaflet") }
        XCTAssertEqual(alicesCreate?.user, Self.aliceID)
        XCTAssertEqual(bobsCreate?.user, Self.bobID, bobs.text)
        // The log is read off the server's stderr as it comes: its second line may lag the answer a moment.
        var users: [String] = []
        for _ in 0..<250 where users.count < 2 {
            users = serve.logLines.filter { $0["tool"] as? String == "add_project" }.compactMap {
                $0["user"] as? String
            }
            if users.count < 2 { usleep(20_000) }
        }
        XCTAssertEqual(users, [Self.aliceID, Self.bobID])
        let clients = serve.logLines.filter { $0["tool"] as? String == "add_project" }.compactMap {
            $0["client"] as? String
        }
        XCTAssertEqual(clients.count, 2, "the log names the client")
        for token in [alice, bob, fake.options.token] {
            XCTAssertFalse(serve.stderr.contains(token), "a token in the log")
        }
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// A session is its person's: a request with no session (and no 2026-07-28 `_meta`) is 400, an unknown one or
    /// another person's is 404, and DELETE ends it (broken by sessions anyone's bearer could use).
    func testASessionIsItsPersonsAndEndsWhenDeleted() throws {
        let serve = try startServe()
        let opened = RawHTTP.rpc(port: serve.port, Self.initialize, token: alice)
        let session = try XCTUnwrap(opened.headers["mcp-session-id"])
        let list: [String: Any] = ["jsonrpc": "2.0", "id": 2, "method": "tools/list"]
        XCTAssertEqual(RawHTTP.rpc(port: serve.port, list, token: alice, session: session).status, 200)
        XCTAssertEqual(RawHTTP.rpc(port: serve.port, list, token: alice).status, 400)
        XCTAssertEqual(RawHTTP.rpc(port: serve.port, list, token: alice, session: "0123abcd").status, 404)
        XCTAssertEqual(RawHTTP.rpc(port: serve.port, list, token: bob, session: session).status, 404)
        let ended = RawHTTP.request(
            port: serve.port, method: "DELETE",
            headers: ["Authorization": "Bearer " + alice, "Mcp-Session-Id": session])
        XCTAssertEqual(ended.status, 204)
        XCTAssertEqual(RawHTTP.rpc(port: serve.port, list, token: alice, session: session).status, 404)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// What keeps one client from harming the server or others: a foreign Origin is 403 (DNS rebinding), a body over
    /// 4 MiB 413 and a head over 16 KiB 431, each before anything is read further or run.
    func testAForeignOriginAndOversizedRequestsAreRefused() throws {
        let serve = try startServe(["--origin", "https://assistant.example"])
        let list: [String: Any] = Self.modern(1, "tools/list")
        let foreign = RawHTTP.rpc(port: serve.port, list, token: alice, extra: ["Origin": "https://evil.example"])
        XCTAssertEqual(foreign.status, 403)
        let allowed = RawHTTP.rpc(
            port: serve.port, list, token: alice, extra: ["Origin": "https://assistant.example"])
        XCTAssertEqual(allowed.status, 200, allowed.text)
        let huge = RawHTTP.request(
            port: serve.port, headers: ["Authorization": "Bearer " + alice, "Content-Type": "application/json"],
            body: Data(repeating: 0x20, count: (4 << 20) + 1))
        XCTAssertEqual(huge.status, 413)
        let longHead = RawHTTP.request(
            port: serve.port,
            headers: ["Authorization": "Bearer " + alice, "X-Padding": String(repeating: "a", count: 17 << 10)])
        XCTAssertEqual(longHead.status, 431)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// A call that asks for progress is answered as an event stream ending with its result.
    func testACallAskingForProgressIsAnsweredAsAnEventStream() throws {
        let serve = try startServe()
        var message = Self.modern(7, "tools/call", ["name": "list_projects", "arguments": ["limit": 2]])
        var params = message["params"] as! [String: Any]
        var meta = params["_meta"] as! [String: Any]
        meta["progressToken"] = "p1"
        params["_meta"] = meta
        message["params"] = params
        let streamed = RawHTTP.rpc(port: serve.port, message, token: alice)
        XCTAssertEqual(streamed.status, 200)
        XCTAssertEqual(streamed.headers["content-type"], "text/event-stream")
        let last = try XCTUnwrap(streamed.events.last)
        XCTAssertEqual(last["id"] as? Int, 7)
        let result = last["result"] as? [String: Any]
        XCTAssertEqual((result?["structuredContent"] as? [String: Any])?["total"] as? Int, 16)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// SIGTERM lets a call in flight finish and answer, then exits 0; health and metrics say what they saw.
    func testSIGTERMFinishesTheCallInFlight() throws {
        let serve = try startServe(latency: 0.4)
        XCTAssertEqual(RawHTTP.request(port: serve.port, method: "GET", path: "/healthz").text, "ok\n")
        let answered = Locked<RawHTTP?>(nil)
        let token = alice
        let thread = Thread {
            answered.withLock {
                $0 = RawHTTP.rpc(
                    port: serve.port,
                    Self.modern(1, "tools/call", ["name": "list_projects", "arguments": ["limit": 1]]),
                    token: token)
            }
        }
        thread.start()
        usleep(300_000)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
        let answer = try XCTUnwrap(answered.withLock { $0 })
        XCTAssertEqual(answer.status, 200, serve.stderr)
        XCTAssertNotNil((answer.json["result"] as? [String: Any])?["structuredContent"], answer.text)
    }

    /// The server's own token revoked: `/healthz` says 503 and why; `/metrics` counts the calls by tool.
    func testHealthSaysWhenAirtableRefusesTheServer() throws {
        let serve = try startServe()
        let called = RawHTTP.rpc(
            port: serve.port, Self.modern(1, "tools/call", ["name": "list_projects", "arguments": ["limit": 1]]),
            token: alice)
        XCTAssertEqual(called.status, 200)
        let metrics = RawHTTP.request(port: serve.port, method: "GET", path: "/metrics").text
        XCTAssertTrue(
            metrics.contains("tracker_mcp_calls_total{tool=\"list_projects\",outcome=\"answered\"} 1"), metrics)
        // Every family has its # HELP and # TYPE, as Prometheus' text format expects.
        let lines = metrics.split(separator: "\n")
        let typed = Set(
            lines.filter { $0.hasPrefix("# TYPE ") }.compactMap { $0.split(separator: " ").dropFirst(2).first })
        let helped = Set(
            lines.filter { $0.hasPrefix("# HELP ") }.compactMap { $0.split(separator: " ").dropFirst(2).first })
        for line in lines where !line.hasPrefix("#") && !line.isEmpty {
            let family = String(line.prefix { $0 != "{" && $0 != " " })
            let base = ["_bucket", "_sum", "_count"].reduce(family) { name, suffix in
                name.hasSuffix(suffix) && !typed.contains(Substring(name)) ? String(name.dropLast(suffix.count)) : name
            }
            XCTAssertTrue(typed.contains(Substring(base)), "\(family) has no # TYPE")
            XCTAssertTrue(helped.contains(Substring(base)), "\(family) has no # HELP")
        }
        fake.revoke(fake.options.token)
        let health = RawHTTP.request(port: serve.port, method: "GET", path: "/healthz")
        XCTAssertEqual(health.status, 503)
        XCTAssertTrue(health.text.hasPrefix("unavailable: Airtable refuses the server's token"), health.text)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// The server's one workspace reads its configuration again on SIGHUP: its revoked token replaced in the secrets
    /// file, the health is good again without a restart (broken by a workspace that keeps the first reading for its
    /// life, or a health that looks only at what a call last read).
    func testSIGHUPReadsTheConfigurationAgain() throws {
        var options = FakeAirtable.Options()
        options.persons = [Self.alicePAT: Self.aliceID]
        options.oauth = FakeOAuthIntegration()
        try startFake(options: options)
        let machine = try configuredTracker(ServeSignInClient.serveSetting(fake))
        let serve = try ServeProcess(machine)
        fake.revoke(fake.options.token)
        XCTAssertEqual(RawHTTP.request(port: serve.port, method: "GET", path: "/healthz").status, 503)
        let secrets = machine.runtimeDirectory + "/Secrets.json"
        let text = try String(contentsOfFile: secrets, encoding: .utf8)
        try text.replacingOccurrences(of: fake.options.token, with: Self.alicePAT).write(
            toFile: secrets, atomically: false, encoding: .utf8)
        kill(serve.process.processIdentifier, SIGHUP)
        for _ in 0..<250 where !serve.stderr.contains("reading the configuration again") { usleep(20_000) }
        XCTAssertTrue(serve.stderr.contains("reading the configuration again"), serve.stderr)
        let health = RawHTTP.request(port: serve.port, method: "GET", path: "/healthz")
        XCTAssertEqual(health.status, 200, health.text)
        XCTAssertFalse(serve.stderr.contains(Self.alicePAT), "a token in the log")
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }
}

/// A value shared between a test and a thread it starts.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
