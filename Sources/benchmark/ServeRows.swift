import FakeAirtable
import Foundation
import TrackerHTTP

/// An assistant's client on one kept-alive HTTP/1.1 connection.
extension LoopbackConnection {
    /// POSTs `body` to /mcp on `port` with `token` as the bearer; the status and the answer's body.
    func postMCP(_ body: Data, port: Int, token: String) -> (status: Int, body: Data) {
        let headers = [
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer \(token)",
        ]
        send(
            LoopbackConnection.head(
                "POST", "/mcp", port: port, headers: headers, bodyLength: body.count, closing: false)
                + Array(body))
        let answer = readAnswer()
        return (answer.status, Data(answer.body))
    }
}

/// A 2026-07-28 request: stateless, its `_meta` saying the version and capabilities.
func modernCall(_ id: Int, _ tool: String, _ arguments: [String: Any]) -> Data {
    let message: [String: Any] = [
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": [
            "name": tool, "arguments": arguments,
            "_meta": [
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": [String: Any](),
            ],
        ],
    ]
    return try! JSONSerialization.data(withJSONObject: message)
}

/// `tracker serve`: a warm read over HTTP against the same over stdio, 50 clients at once reading from the copy at
/// 1,016 projects (latencies, 429s), and the memory an idle session costs.
@MainActor func serveRows(calls: Int, clients: Int, callsEach: Int) throws {
    print(" serve's own copy (freshened on Airtable's pings):")
    let (alone, environment) = try serve(
        FakeAirtable.generatedProjects(count: 1016), requestsPerSecond: 5, trackerPace: 5, oauth: FakeOAuthIntegration()
    )
    try serveRows(alone, environment, calls: calls, clients: clients, callsEach: callsEach)
    alone.stop()
    guard let redis = BenchmarkRedis() else { return print("  no redis-server installed; the team's copy skipped") }
    defer { redis.stop() }
    print(" the team's copy in Redis (calls read the copy; its poller rounds on pings):")
    let (fake, _) = try serve(
        FakeAirtable.generatedProjects(count: 1016), requestsPerSecond: 5, trackerPace: 5, oauth: FakeOAuthIntegration()
    )
    try serveRows(
        fake, try teamMachine(fake, redis: redis.url, teamCopy: true), calls: calls, clients: clients,
        callsEach: callsEach)
    fake.stop()
    print(" signed-in people's Airtable grants, kept by two serves sharing the team's Redis:")
    do { try twoServesRow(redis: redis) } catch { print("  FAILED: \(error)") }
}

@MainActor private func serveRows(
    _ fake: FakeAirtable, _ environment: [String: String], calls: Int, clients: Int, callsEach: Int
) throws {
    let port = 20000 + Int.random(in: 0..<20000)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: tracker)
    // As a team deploys it: a public URL, so Airtable pings the server when the base changes.
    server.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--public-url", "http://127.0.0.1:\(port)"]
    server.environment = environment
    server.standardError = FileHandle.nullDevice
    try server.run()
    defer { server.terminate() }
    var connection: LoopbackConnection?
    for _ in 0..<200 where connection == nil {
        usleep(25_000)
        connection = LoopbackConnection(port: port)
    }
    guard let http = connection else { return print("  tracker serve did not start") }
    // A person signs in (serve's OAuth, chained to the fake's Airtable OAuth): serve's own steps timed apart from the
    // callback, which waits on Airtable's three round trips (the code's exchange, whoami, one read of the base).
    let token: String
    do {
        let signIn = try SignInTiming.measure(port: port, user: fake.options.user.id)
        token = signIn.access
        print(
            String(
                format:
                    "  a sign-in: serve's own steps %.1f ms (register, authorize, consent, token), the callback %.1f ms with Airtable's round trips",
                signIn.ownMs, signIn.callbackMs))
    } catch { return print("  the sign-in failed: \(error)") }
    let list: [String: Any] = ["limit": 20]
    _ = http.postMCP(modernCall(0, "list_projects", list), port: port, token: token)
    let stdio = try MCPServerProcess(tracker, environment: environment)
    _ = stdio.tool("list_projects", list)
    var started = Date()
    for _ in 0..<calls { _ = stdio.tool("list_projects", list) }
    let stdioMs = Date().timeIntervalSince(started) * 1000 / Double(calls)
    started = Date()
    var failed = 0
    for index in 0..<calls
    where http.postMCP(modernCall(index + 1, "list_projects", list), port: port, token: token).status != 200 {
        failed += 1
    }
    let httpMs = Date().timeIntervalSince(started) * 1000 / Double(calls)
    stdio.stop()
    print(
        String(
            format: "  warm list_projects (limit 20, 1,016 projects): stdio %.2f ms, HTTP %.2f ms a call (%.2f×)%@",
            stdioMs, httpMs, httpMs / stdioMs, failed > 0 ? "  FAILED \(failed)" : ""))
    // Clients at once, each on a connection of its own.
    let latencies = LockedLatencies()
    let before = fake.log.count
    DispatchQueue.concurrentPerform(iterations: clients) { _ in
        guard let connection = LoopbackConnection(port: port) else { return }
        for call in 0..<callsEach {
            let begun = Date()
            let answer = connection.postMCP(modernCall(call, "list_projects", ["limit": 20]), port: port, token: token)
            latencies.add(Date().timeIntervalSince(begun) * 1000, ok: answer.status == 200)
        }
    }
    let tooMany = fake.log.dropFirst(before).filter { $0.status == 429 }.count
    let (sorted, failures) = latencies.sorted()
    func percentile(_ p: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
    print(
        String(
            format: "  %d clients × %d calls at once: p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d × 429; %d failed",
            clients, callsEach, percentile(0.5), percentile(0.99), sorted.last ?? 0, tooMany, failures))
    // Idle sessions: the resident memory they add, each.
    let rss = { () -> Double in
        let status = (try? String(contentsOfFile: "/proc/\(server.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    let sessions = 500
    let initialize = try JSONSerialization.data(withJSONObject: [
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": [
            "protocolVersion": "2025-11-25", "capabilities": [String: Any](),
            "clientInfo": ["name": "b", "version": "1"],
        ],
    ])
    let memoryBefore = rss()
    for _ in 0..<sessions { _ = http.postMCP(initialize, port: port, token: token) }
    let memoryAfter = rss()
    print(
        String(
            format: "  %d idle sessions: %.1f KiB of resident memory each (%.0f MiB before, %.0f MiB after)", sessions,
            (memoryAfter - memoryBefore) / Double(sessions), memoryBefore / 1024, memoryAfter / 1024))
}

final class LockedLatencies: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    private var failures = 0

    func add(_ milliseconds: Double, ok: Bool) {
        lock.lock()
        values.append(milliseconds)
        if !ok { failures += 1 }
        lock.unlock()
    }

    func sorted() -> ([Double], Int) {
        lock.lock()
        defer { lock.unlock() }
        return (values.sorted(), failures)
    }
}

/// A person's sign-in through serve, each step timed.
enum SignInTiming {
    static func measure(port: Int, user: String) throws -> (access: String, ownMs: Double, callbackMs: Double) {
        let client = ServeSignInClient(servePort: port)
        var own = 0.0
        func timed<T>(_ body: () throws -> T) rethrows -> T {
            let started = Date()
            defer { own += Date().timeIntervalSince(started) * 1000 }
            return try body()
        }
        let id = try timed { try client.register() }
        let (verifier, challenge) = ServeSignInClient.pkce()
        let (_, cookie, request, csrf) = try timed { try client.consent(client: id, challenge: challenge) }
        let decided = timed { client.decide(request: request, csrf: csrf, cookie: cookie) }
        guard let location = decided.headers["location"], let query = location.split(separator: "?").last,
            let airtablePort = Int(location.split(separator: ":")[2].prefix { $0.isNumber })
        else { throw ServeSignInClient.Failure(description: "Allow went nowhere") }
        let granted = ServeSignInClient.request(
            port: airtablePort, "POST", "/oauth2/v1/authorize",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array((String(query) + "&user=" + user).utf8))
        let started = Date()
        let back = client.callback(granted.headers["location"] ?? "", cookie: cookie)
        let callbackMs = Date().timeIntervalSince(started) * 1000
        let code = try ServeSignInClient.code(from: back)
        let answer = timed {
            client.token([
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", client.redirectURI),
                ("code_verifier", verifier), ("client_id", id),
            ])
        }
        guard let access = answer.json?["access_token"]?.stringValue else {
            throw ServeSignInClient.Failure(description: "no token: \(answer.text)")
        }
        return (access, own, callbackMs)
    }
}
