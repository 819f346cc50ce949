import FakeAirtable
import Foundation

/// A board opened after two assistants' servers warmed the team's copy: what the base is asked in the board's first
/// 30 s (the poller's upkeep included), and how many pollers the boards and assistants keep between them. Goal: ≤ 3
/// requests, one poller (a board kept a copy of its own fields: a second whole read, a second poller).
@MainActor func mixedFacesRow(_ fake: FakeAirtable, redis: BenchmarkRedis, row: (String, String, String) -> Void)
    throws
{
    _ = try? redis.cli(["FLUSHALL"])
    waitUntilIdle(fake, for: 1.1)
    let servers = try (0..<2).map { _ in
        try MCPServerProcess(tracker, environment: try teamMachine(fake, redis: redis.url, teamCopy: true))
    }
    defer { servers.forEach { $0.stop() } }
    for server in servers { _ = server.tool("list_projects", ["limit": 1]) }
    waitUntilIdle(fake, for: 1.1)
    let before = fake.recordLog.count
    let started = Date()
    let board = try BoardTerminalProcess(
        tracker, environment: try teamMachine(fake, redis: redis.url, teamCopy: true), columns: 160, rows: 40,
        arguments: "board --every 300")
    let drawn = board.drawn("Project 0", timeout: 60).map { $0.timeIntervalSince(started) }
    Thread.sleep(forTimeInterval: max(0, 30 - Date().timeIntervalSince(started)))
    let requests = fake.recordLog.count - before
    let leases = ((try? redis.cli(["--scan", "--pattern", "*:copy:*:lease"])) ?? "")
        .split(whereSeparator: \.isNewline).count
    board.quit()
    row(
        "a board after two assistants warmed the copy: its first 30 s",
        "\(requests) requests to the base, first screen \(drawn.map(seconds) ?? "never"), \(leases) poller(s)",
        "≤ 3 requests; one poller")
}
