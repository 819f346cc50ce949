import FakeAirtable
import Foundation

/// `--team`: the team's copy. Ten machines (a HOME, a runtime directory and a secrets file each) against the fake that
/// enforces 5 requests a second and one redis-server: ten `mcp` servers opened together each counting the tasks, with
/// and without the team's copy; ten open servers answering a call every 5 s for a minute; a change seen by all ten;
/// then a reader opening from Redis at 50,000 projects and 100,000 tasks.
@MainActor func teamRows(quick: Bool) throws {
    guard let redis = BenchmarkRedis() else {
        print("  no redis-server installed (apt-get install redis-server); --team skipped")
        return
    }
    defer { redis.stop() }
    let fake = try pacedTeamBase()
    defer { fake.stop() }
    func machines(teamCopy: Bool, count: Int = 10) throws -> [[String: String]] {
        try (0..<count).map { _ in try teamMachine(fake, redis: redis.url, teamCopy: teamCopy) }
    }
    func row(_ name: String, _ value: String, goal: String) { printTeamRow(name, value, goal) }

    // One server alone, then ten together: requests and the last answer.
    func openTogether(_ environments: [[String: String]]) throws -> (requests: Int, last: Double, totals: Set<Int>) {
        let before = fake.recordLog.count
        let started = Date()
        let servers = try environments.map { try MCPServerProcess(tracker, environment: $0) }
        let answers = TeamAnswers(count: servers.count)
        DispatchQueue.concurrentPerform(iterations: servers.count) { index in
            let result = servers[index].call("tools/call", ["name": "list_tasks", "arguments": ["limit": 1]])
            let structured = (result["result"] as? [String: Any])?["structuredContent"] as? [String: Any]
            answers.set(index, total: structured?["total"] as? Int ?? -1, at: Date().timeIntervalSince(started))
        }
        for server in servers { server.stop() }
        waitUntilIdle(fake, for: 1)
        return (fake.recordLog.count - before, answers.last, answers.totals)
    }
    _ = try? redis.cli(["FLUSHALL"])
    let alone = try openTogether(try machines(teamCopy: true, count: 1))
    row("one mcp server, first count of 10,160 tasks", "\(alone.requests) requests, \(seconds(alone.last))", goal: "")
    _ = try? redis.cli(["FLUSHALL"])
    let together = try openTogether(try machines(teamCopy: true))
    row(
        "ten servers opened together, team's copy",
        "\(together.requests) requests, last \(seconds(together.last)) = \(String(format: "%.2f", together.last / alone.last))× one, totals \(together.totals.sorted())",
        goal: "≤ one read's ~115, ≤ 1.3×")
    if !quick {
        let today = try openTogether(try machines(teamCopy: false))
        row(
            "ten servers opened together, without it (today)",
            "\(today.requests) requests, last \(seconds(today.last))", goal: "10 × one read")
    }

    // Ten open servers, a call every 5 s each for a minute.
    _ = try? redis.cli(["FLUSHALL"])
    let team = try machines(teamCopy: true)
    let servers = try team.map { try MCPServerProcess(tracker, environment: $0) }
    for server in servers { _ = server.tool("list_projects", ["limit": 1]) }
    waitUntilIdle(fake, for: 1)
    let minute = quick ? 20.0 : 60.0
    let before = fake.recordLog.count
    let started = Date()
    var calls = 0
    while Date().timeIntervalSince(started) < minute {
        for server in servers {
            _ = server.tool("list_projects", ["limit": 1])
            calls += 1
        }
        Thread.sleep(forTimeInterval: 5)
    }
    row(
        "ten open servers, a call every 5 s each for \(Int(minute)) s",
        "\(fake.recordLog.count - before) requests for \(calls) calls",
        goal: "≤ 15 a minute; today one a call")

    // A change made elsewhere, seen by all ten.
    let elsewhere = try teamMachine(fake, redis: redis.url, teamCopy: false)
    _ = Measure.run(tracker, ["update", "rec00000000000011", "--name", "Seen by ten"], environment: elsewhere)
    let changed = Date()
    var seen = 0.0
    for server in servers {
        while Date().timeIntervalSince(changed) < 30 {
            let result = server.call("tools/call", ["name": "list_projects", "arguments": ["search": "Seen by ten"]])
            let structured = (result["result"] as? [String: Any])?["structuredContent"] as? [String: Any]
            if (structured?["total"] as? Int ?? 0) > 0 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        seen = max(seen, Date().timeIntervalSince(changed))
    }
    row("a change in Airtable seen by all ten", seconds(seen), goal: "≤ teamCopyEvery (10 s) + 2 s")
    for server in servers { server.stop() }
    try boardsRow(fake, redis: redis, row: row)
    try mixedFacesRow(fake, redis: redis, row: row)
    try bigReaderRow(redis: redis, quick: quick, row: row)
}

/// One board alone, then ten opened together, each on a machine of its own: the first screen (a card drawn) and the
/// whole read (the header names the team's copy), and the requests in all.
@MainActor private func boardsRow(_ fake: FakeAirtable, redis: BenchmarkRedis, row: (String, String, String) -> Void)
    throws
{
    // Each board's first screen is timed from its own start (the harness starts them one after another, ~5 ms each);
    // the last of them from the first start is shown too.
    func open(_ count: Int) throws -> (requests: Int, first: Double, last: Double, whole: Double) {
        _ = try? redis.cli(["FLUSHALL"])
        waitUntilIdle(fake, for: 1.1)
        let before = fake.recordLog.count
        let started = Date()
        var starts: [Date] = []
        let boards = try (0..<count).map { _ in
            let environment = try teamMachine(fake, redis: redis.url, teamCopy: true)
            starts.append(Date())
            return try BoardTerminalProcess(
                tracker, environment: environment, columns: 160, rows: 40, arguments: "board --every 300")
        }
        let firsts = boards.map { $0.drawn("Project 0", timeout: 300) ?? started.addingTimeInterval(999) }
        // Each board's own first screen, whether it polls and its CPU so far, when asked (BENCHMARK_LOG=1).
        if ProcessInfo.processInfo.environment["BENCHMARK_LOG"] != nil {
            for (index, board) in boards.enumerated() {
                let polls = board.wait(for: "this process polls", timeout: 0.01) != nil
                print(
                    String(
                        format: "    board %d: first screen %.0f ms after its start%@, CPU %.0f ms", index,
                        firsts[index].timeIntervalSince(starts[index]) * 1000, polls ? " (polls)" : "",
                        board.cpuSeconds * 1000))
            }
        }
        let wholes = boards.map {
            $0.wait(for: "team's copy", timeout: 300).map { _ in Date().timeIntervalSince(started) }
        }
        for board in boards { board.quit() }
        waitUntilIdle(fake, for: 1.1)
        let own = zip(firsts, starts).map { $0.timeIntervalSince($1) }
        let last = (firsts.max() ?? started).timeIntervalSince(started)
        return (fake.recordLog.count - before, own.max() ?? 0, last, wholes.map { $0 ?? 999 }.max() ?? 0)
    }
    let alone = try open(1)
    row(
        "one board: first screen, whole read",
        "\(seconds(alone.first)), \(seconds(alone.whole)), \(alone.requests) requests",
        "")
    let ten = try open(10)
    row(
        "ten boards opened together: slowest first screen, whole read",
        "\(seconds(ten.first)) = \(String(format: "%.2f", ten.first / alone.first))× one (last drawn \(seconds(ten.last)) after the first start), \(seconds(ten.whole)), \(ten.requests) requests",
        "one read; first screen ≤ 1.3 × one board's")
}

/// `--team-boards`: the boards' rows alone.
@MainActor func teamBoardsRows() throws {
    guard let redis = BenchmarkRedis() else { return print("  no redis-server installed; --team-boards skipped") }
    defer { redis.stop() }
    let fake = try pacedTeamBase()
    defer { fake.stop() }
    try boardsRow(fake, redis: redis, row: printTeamRow)
    try mixedFacesRow(fake, redis: redis, row: printTeamRow)
}

/// `--team-mixed`: the row of a board opened after assistants warmed the copy, alone.
@MainActor func teamMixedRow() throws {
    guard let redis = BenchmarkRedis() else { return print("  no redis-server installed; --team-mixed skipped") }
    defer { redis.stop() }
    let fake = try pacedTeamBase()
    defer { fake.stop() }
    try mixedFacesRow(fake, redis: redis, row: printTeamRow)
}

/// The base of the team's rows: 1,016 projects and 10,160 tasks behind the fake enforcing 5 requests a second.
@MainActor private func pacedTeamBase() throws -> FakeAirtable {
    let projects = 1016
    return try serve(
        FakeAirtable.generatedProjects(count: projects), requestsPerSecond: 5, trackerPace: 5,
        tasks: FakeAirtable.generatedTasks(count: projects * 10, projects: projects)
    ).0
}

/// One row of the team's benchmark: what, the value measured, and the goal.
private func printTeamRow(_ name: String, _ value: String, _ goal: String) {
    print("  " + name.padding(toLength: 62, withPad: " ", startingAt: 0) + value + "   (" + goal + ")")
}

/// `--team-reader`: the big reader's row alone.
@MainActor func teamReaderRow(quick: Bool) throws {
    guard let redis = BenchmarkRedis() else { return print("  no redis-server installed; --team-reader skipped") }
    defer { redis.stop() }
    try bigReaderRow(redis: redis, quick: quick, row: printTeamRow)
}

/// At 50,000 projects and 100,000 tasks (the fake unpaced, so the poller's first read does not take minutes): how long
/// a second server takes to answer its first count from Redis, and its peak memory.
@MainActor func bigReaderRow(
    redis: BenchmarkRedis, quick: Bool, row: (String, String, String) -> Void
) throws {
    let projects = quick ? 10_000 : 50_000
    let (fake, _) = try serve(
        FakeAirtable.generatedProjects(count: projects),
        tasks: FakeAirtable.generatedTasks(count: projects * 2, projects: projects))
    defer { fake.stop() }
    _ = try? redis.cli(["FLUSHALL"])
    let poller = try MCPServerProcess(
        tracker, environment: try teamMachine(fake, redis: redis.url, teamCopy: true, pace: 10000))
    _ = poller.tool("list_tasks", ["limit": 1])
    let started = Date()
    let reader = try MCPServerProcess(
        tracker, environment: try teamMachine(fake, redis: redis.url, teamCopy: true, pace: 10000))
    let requests = fake.recordLog.count
    _ = reader.tool("list_tasks", ["limit": 1])
    let wall = Date().timeIntervalSince(started)
    let peak = peakMiB(reader.process.processIdentifier) ?? 0
    row(
        "a reader opens from Redis: \(projects.formatted()) projects, \((projects * 2).formatted()) tasks",
        "\(seconds(wall)), \(String(format: "%.1f", peak)) MiB, \(fake.recordLog.count - requests) record requests",
        "≤ 2 s, ≤ 200 MiB")
    reader.stop()
    poller.stop()
}

/// A machine of the team: its own HOME, runtime directory and secrets file, pointed at `fake` and the team's Redis.
func teamMachine(_ fake: FakeAirtable, redis: String, teamCopy: Bool, pace: Int = 5) throws -> [String: String] {
    let home = scratch + "/team-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true)
    let options = fake.options
    let signIn = options.oauth == nil ? "" : ", " + ServeSignInClient.serveSetting(fake)
    let json =
        #"{"token": "\#(options.token)", "baseId": "\#(options.baseID)", "table": "\#(options.table)", "endpoint": "\#(fake.endpoint)", "requestsPerSecond": \#(pace), "redis": "\#(redis)", "teamCopy": \#(teamCopy)\#(signIn)}"#
    try json.write(toFile: home + "/Secrets.json", atomically: false, encoding: .utf8)
    chmod(home + "/Secrets.json", 0o600)
    return [
        "TRACKER_SECRETS": home + "/Secrets.json", "TRACKER_RUNTIME_DIR": home + "/run", "HOME": home,
        "PATH": "/usr/bin:/bin",
    ]
}

/// The answers of servers called together: each total, and when the last came.
final class TeamAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var found: [(total: Int, at: Double)]

    init(count: Int) { found = Array(repeating: (-1, 0), count: count) }

    func set(_ index: Int, total: Int, at: Double) {
        lock.lock()
        found[index] = (total, at)
        lock.unlock()
    }

    var last: Double {
        lock.lock()
        defer { lock.unlock() }
        return found.map(\.at).max() ?? 0
    }

    var totals: Set<Int> {
        lock.lock()
        defer { lock.unlock() }
        return Set(found.map(\.total))
    }
}
