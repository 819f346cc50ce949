import FakeAirtable
import Foundation

/// `--month [--minutes N]`: what faces left open cost the workspace's month. Two boards and two assistants' servers
/// with the team's copy (one redis-server, the fake enforcing 5 a second, the recorded base), left alone after their
/// first read for `minutes` (30; 3 with --quick): the requests per 10 minutes and an hour's rate after the first 10
/// minutes; then an assistant's call after the idle time, timed against a call while the copy is warm. Goal: ≤ 12 an
/// hour after the first 10 minutes (it was about 714), and the call after within one round trip of a warm one.
@MainActor func monthRows(minutes: Double) throws {
    guard let faces = try IdleFaces.open() else {
        return print("  no redis-server installed (apt-get install redis-server); --month skipped")
    }
    defer { faces.close() }
    let (fake, servers) = (faces.fake, faces.servers)
    func timedCall(_ server: MCPServerProcess) -> Double {
        let started = Date()
        _ = server.tool("list_projects", ["limit": 1])
        return Date().timeIntervalSince(started)
    }
    // Each server's first call opens its copy; the second is a warm call.
    _ = servers.map(timedCall)
    let warm = servers.map(timedCall).max() ?? 0
    waitUntilIdle(fake, for: 2)
    let start = fake.log.count
    let began = Date()
    var marks: [Int] = []
    let step = min(600, minutes * 60 / 3)
    while Date().timeIntervalSince(began) < minutes * 60 {
        Thread.sleep(forTimeInterval: step)
        marks.append(fake.log.count)
        print("  after \(Int(Date().timeIntervalSince(began) / 60)) idle min: \(fake.log.count - start) requests")
    }
    let settled = Double((marks.last ?? start) - (marks.first ?? start))
    let settledMinutes = Double(max(1, marks.count - 1)) * step / 60
    let perHour = settled / settledMinutes * 60
    print(
        String(
            format:
                "  2 boards + 2 servers, team's copy, idle %d min: %d requests; after the first %d min %.1f an hour   (goal ≤ 12; was ~714)",
            Int(minutes), (marks.last ?? start) - start, Int(step / 60), perHour))
    let after = timedCall(servers[0])
    print(
        String(
            format: "  an assistant's call after the idle time: %@ (a warm call %@)   (goal: within one round trip)",
            seconds(after) as NSString, seconds(warm) as NSString))
}

/// `--month --serve [--minutes N]`: the same faces with `tracker serve` keeping Airtable's pings (its public URL on
/// loopback, so the fake pings it): two boards and two assistants' stdio servers follow the team's copy, whose poller
/// rounds on pings and hourly. The requests while nobody looks (goal ≤ 1 an hour after the first read), then a
/// change made in Airtable and the seconds until every follower shows it (goal: within 2 s of its ping).
@MainActor func monthServeRows(minutes: Double) throws {
    let port = 20000 + Int.random(in: 0..<20000)
    let server = Process()
    // Serve is started first, so its doorbell is there when the followers open.
    let opened = try IdleFaces.open { fake, redis in
        server.executableURL = URL(fileURLWithPath: tracker)
        server.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--public-url", "http://127.0.0.1:\(port)"]
        server.environment = try teamMachine(fake, redis: redis.url, teamCopy: true)
        server.standardError = FileHandle.nullDevice
        try server.run()
    }
    guard let faces = opened else {
        return print("  no redis-server installed (apt-get install redis-server); --month --serve skipped")
    }
    defer { faces.close() }
    defer { if server.isRunning { server.terminate() } }
    let (fake, boards, servers) = (faces.fake, faces.boards, faces.servers)
    for server in servers { _ = server.tool("list_projects", ["limit": 1]) }
    // The doorbell is rung once the hook exists; the first rounds settle.
    waitUntilIdle(fake, for: 5)
    let start = fake.log.count
    let began = Date()
    let step = min(600, minutes * 60 / 3)
    while Date().timeIntervalSince(began) < minutes * 60 {
        Thread.sleep(forTimeInterval: step)
        print("  after \(Int(Date().timeIntervalSince(began) / 60)) idle min: \(fake.log.count - start) requests")
    }
    let idle = fake.log.count - start
    print(
        String(
            format: "  serve (pings) + 2 boards + 2 servers, idle %d min: %d requests, %.1f an hour   (goal ≤ 1)",
            Int(minutes), idle, Double(idle) / minutes * 60))
    // A change a person makes in Airtable's app (not a Web API request, so not one of the base's 5 a second): the
    // seconds from its ping until each follower shows it.
    let pinged = fake.pingsSent.count
    let edited = fake.editInApp(projectNamed: "Coffee packaging", setting: ["Name": "Pinged"])
    let deadline = Date().addingTimeInterval(30)
    while fake.pingsSent.count == pinged && Date() < deadline { usleep(5_000) }
    let ping = Date()
    if !edited || fake.pingsSent.count == pinged {
        print("  the change: edited \(edited), \(fake.pingsSent.count - pinged) pings sent")
    }
    var arrivals: [Double] = []
    for board in boards { arrivals.append(board.drawn("Pinged", timeout: 30)?.timeIntervalSince(ping) ?? 99) }
    // The servers are asked side by side, each until it shows the change or 30 s have passed since the ping.
    let seen = LockedLatencies()
    DispatchQueue.concurrentPerform(iterations: servers.count) { index in
        var arrival: Double = 99
        while Date().timeIntervalSince(ping) < 30 {
            let answer = servers[index].call("tools/call", ["name": "list_projects", "arguments": ["limit": 50]])
            let text = String(decoding: (try? JSONSerialization.data(withJSONObject: answer)) ?? Data(), as: UTF8.self)
            if text.contains("Pinged") {
                arrival = Date().timeIntervalSince(ping)
                break
            }
            usleep(50_000)
        }
        seen.add(arrival, ok: true)
    }
    arrivals += seen.sorted().0
    // What reached the fake around the change, when asked (BENCHMARK_LOG=1): which follower read Airtable, and why.
    if ProcessInfo.processInfo.environment["BENCHMARK_LOG"] != nil {
        for entry in fake.log.suffix(12) {
            print(
                String(format: "    %8.3f s  ", entry.received) + "\(entry.method) \(entry.path) \(entry.status ?? 0)")
        }
    }
    print(
        String(
            format: "  a change made in Airtable, in every follower %@ after its ping (slowest of 4)   (goal ≤ 2 s)",
            seconds(arrivals.max() ?? 99) as NSString))
    // Each follower's own (99 s: not seen within 30 s).
    print(
        "    boards " + arrivals.prefix(2).map { seconds($0) }.joined(separator: ", ") + "; stdio servers "
            + arrivals.suffix(2).map { seconds($0) }.joined(separator: ", "))
}

/// The faces both `--month` rows leave open: one redis-server, the fake enforcing 5 a second with the recorded base,
/// and on four team machines two boards (their first screens drawn) and two assistants' stdio servers.
@MainActor struct IdleFaces {
    let redis: BenchmarkRedis
    let fake: FakeAirtable
    let boards: [BoardTerminalProcess]
    let servers: [MCPServerProcess]

    /// Opens them, after `first` (given the fake and Redis) has run; nil when no redis-server is installed.
    static func open(first: (FakeAirtable, BenchmarkRedis) throws -> Void = { _, _ in }) throws -> IdleFaces? {
        guard let redis = BenchmarkRedis() else { return nil }
        let fake: FakeAirtable
        do {
            fake = try serve(FakeAirtable.recordedProjects, requestsPerSecond: 5, trackerPace: 5).0
        } catch {
            redis.stop()
            throw error
        }
        do {
            try first(fake, redis)
            let machines = try (0..<4).map { _ in try teamMachine(fake, redis: redis.url, teamCopy: true) }
            let boards = try machines.prefix(2).map { try BoardTerminalProcess(tracker, environment: $0) }
            let servers = try machines.suffix(2).map { try MCPServerProcess(tracker, environment: $0) }
            for board in boards { _ = board.wait(for: "CMCA") }
            return IdleFaces(redis: redis, fake: fake, boards: boards, servers: servers)
        } catch {
            fake.stop()
            redis.stop()
            throw error
        }
    }

    /// Quits every face, then the fake and Redis.
    func close() {
        boards.forEach { $0.quit() }
        servers.forEach { $0.stop() }
        fake.stop()
        redis.stop()
    }
}
