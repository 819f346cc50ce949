import FakeAirtable
import Foundation
import TrackerHTTP

/// Two serves behind one proxy sharing the team's Redis, 20 people signed in, their Airtable tokens expiring
/// together: each person's token is refreshed once between the two serves (a second use of Airtable's single-use
/// refresh token would revoke their grant), and every call is answered.
@MainActor func twoServesRow(redis: BenchmarkRedis) throws {
    var oauth = FakeOAuthIntegration()
    oauth.accessSeconds = 4
    let (fake, _) = try serve(
        FakeAirtable.generatedProjects(count: 100), requestsPerSecond: 5, trackerPace: 5, oauth: oauth)
    defer { fake.stop() }
    var servers: [(Process, Int)] = []
    defer { for (server, _) in servers { server.terminate() } }
    for _ in 0..<2 {
        let port = 20000 + Int.random(in: 0..<20000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: tracker)
        server.arguments = ["serve", "--listen", "127.0.0.1:\(port)"]
        server.environment = try teamMachine(fake, redis: redis.url, teamCopy: true)
        server.standardError = FileHandle.nullDevice
        try server.run()
        servers.append((server, port))
    }
    for (_, port) in servers {
        var up = false
        for _ in 0..<200 where !up {
            usleep(25_000)
            up = LoopbackConnection(port: port) != nil
        }
        guard up else { return print("  tracker serve did not start") }
    }
    let people = (1...20).map { String(format: "usrPERSON%08d", $0) }
    var tokens: [String] = []
    for (index, person) in people.enumerated() {
        let port = servers[index % 2].1
        tokens.append(try ServeSignInClient(servePort: port).signIn(as: person).access)
    }
    let before = fake.oauthExchanges.count
    // Past the tokens' 4 s: every person's token has expired by the time their calls come, at both serves at once.
    usleep(4_500_000)
    let failures = LockedLatencies()
    let started = Date()
    let (held, ports) = (tokens, servers.map(\.1))
    DispatchQueue.concurrentPerform(iterations: held.count * 2) { index in
        let token = held[index / 2]
        let port = ports[index % 2]
        guard let connection = LoopbackConnection(port: port) else { return failures.add(0, ok: false) }
        let begun = Date()
        let answer = connection.postMCP(modernCall(index, "list_projects", ["limit": 1]), port: port, token: token)
        failures.add(Date().timeIntervalSince(begun) * 1000, ok: answer.status == 200)
    }
    let seconds = Date().timeIntervalSince(started)
    let refreshes = fake.oauthExchanges.dropFirst(before).filter { $0.grantType == "refresh_token" }
    let (sorted, failed) = failures.sorted()
    print(
        String(
            format:
                "  two serves, 20 people's Airtable tokens expired together, 40 calls at once: %d refreshes (%d refused), %d calls failed, p99 %.0f ms, %.1f s in all",
            refreshes.count, refreshes.filter { !$0.granted }.count, failed,
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], seconds))
}
