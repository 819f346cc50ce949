import FakeAirtable
import Foundation

/// `--month [--minutes N]`: what faces left open cost the workspace's month. Two boards and two assistants' servers
/// with the team's copy (one redis-server, the fake enforcing 5 a second, the recorded base), left alone after their
/// first read for `minutes` (30; 3 with --quick): the requests per 10 minutes and an hour's rate after the first 10
/// minutes; then an assistant's call after the idle time, timed against a call while the copy is warm. Goal: ≤ 12 an
/// hour after the first 10 minutes (it was about 714), and the call after within one round trip of a warm one.
@MainActor func monthRows(minutes: Double) throws {
    guard let redis = BenchmarkRedis() else {
        return print("  no redis-server installed (apt-get install redis-server); --month skipped")
    }
    defer { redis.stop() }
    let (fake, _) = try serve(FakeAirtable.recordedProjects, requestsPerSecond: 5, trackerPace: 5)
    defer { fake.stop() }
    let machines = try (0..<4).map { _ in try teamMachine(fake, redis: redis.url, teamCopy: true) }
    let boards = try machines.prefix(2).map { try BoardTerminalProcess(tracker, environment: $0) }
    defer { boards.forEach { $0.quit() } }
    let servers = try machines.suffix(2).map { try MCPServerProcess(tracker, environment: $0) }
    defer { servers.forEach { $0.stop() } }
    for board in boards { _ = board.wait(for: "CMCA") }
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
