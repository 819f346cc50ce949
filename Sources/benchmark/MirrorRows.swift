import FakeAirtable
import Foundation

/// `--mirror`: what the faces that stay and `changes` send once they keep the tables (docs/contract.md "What changed,
/// not
/// the whole table"), on the template's 16 projects and 1,000 more with 10 tasks each, against a fake that enforces
/// Airtable's 5 requests a second: a board's refresh with nothing changed, a warm assistant's `list_tasks` with its
/// total, `changes` after three changes, the board's first screen, and its memory over 50,000 projects and 100,000
/// tasks.
@MainActor func mirrorRows(quick: Bool) throws {
    let projects = FakeAirtable.recordedProjects + FakeAirtable.generatedProjects(count: 1000)
    let tasks = FakeAirtable.generatedTasks(count: 10_000, projects: 1000)
    let (fake, environment) = try serve(projects, requestsPerSecond: 5, trackerPace: 5, tasks: tasks)
    defer { fake.stop() }
    func sent(since mark: Int) -> [FakeAirtable.LogEntry] { Array(fake.recordLog.dropFirst(mark)) }
    func row(_ name: String, _ requests: Int, _ seconds: Double, goal: String) {
        print(
            String(
                format: "  %@ %3d requests %8.2f s  (goal %@)", name.padding(toLength: 58, withPad: " ", startingAt: 0),
                requests, seconds, goal))
    }

    // A board left open: its first read whole, then a refresh every 5 s; two refreshes with nothing changed.
    _ = Measure.run(tracker, ["list", "--limit", "1"], environment: environment)
    do {
        let board = try BoardTerminalProcess(
            tracker, environment: environment, columns: 160, rows: 40, arguments: "board --every 5")
        _ = board.wait(for: "deletions by", timeout: 600)
        // The tasks' counts come after the cards: the first read is over when the fake has been idle a refresh long.
        waitUntilIdle(fake, for: 2.5, allowing: 2)
        let mark = fake.recordLog.count
        Thread.sleep(forTimeInterval: 10)
        let refreshes = sent(since: mark)
        // A refresh's requests go one after another: its wall on the fake is theirs added up.
        let busy = refreshes.reduce(0) { $0 + $1.time - $1.received }
        board.quit()
        row(
            "board refresh, nothing changed (mean of 2)", refreshes.count / 2, busy / 2,
            goal: "≤ 2 a refresh; ~107 before")
    }

    // An assistant: the first list_tasks reads the tables whole, the next ones only the news.
    let server = try MCPServerProcess(tracker, environment: environment)
    var mark = fake.recordLog.count
    var started = Date()
    _ = server.tool("list_tasks", [:])
    let cold = Date().timeIntervalSince(started)
    row("mcp list_tasks, cold (tables read whole)", sent(since: mark).count, cold, goal: "once a server")
    mark = fake.recordLog.count
    started = Date()
    _ = server.tool("list_tasks", [:])
    row(
        "mcp list_tasks with its total, warm", sent(since: mark).count, Date().timeIntervalSince(started),
        goal: "≤ 2; 112 before")
    server.process.terminate()
    server.process.waitUntilExit()

    // changes, hourly: the first run remembers; three changes by others; the next run reads only those.
    _ = Measure.run(tracker, ["changes"], environment: environment)
    for arguments in [
        ["update", "Project 00005", "--name", "Renamed five"], ["delete", "--yes", "Project 00007"],
        ["add", "--name", "Brand new", "--due", "2026-12-24"],
    ] {
        _ = Measure.run(tracker, arguments, environment: environment)
    }
    mark = fake.recordLog.count
    let changes = Measure.run(tracker, ["changes"], environment: environment)
    row("changes after three changes", sent(since: mark).count, changes.wall, goal: "≤ 3; 11 before")
    mark = fake.recordLog.count
    let quiet = Measure.run(tracker, ["changes"], environment: environment)
    row("changes, nothing changed", sent(since: mark).count, quiet.wall, goal: "≤ 3")

    // The first screen against answers 300 ms late: one round trip, as before the board kept its tables.
    try firstScreenRows()

    // Memory: a board that keeps 50,000 projects and 100,000 tasks.
    let (count, taskCount) = quick ? (10_000, 20_000) : (50_000, 100_000)
    let (big, bigEnvironment) = try serve(
        FakeAirtable.generatedProjects(count: count),
        tasks: FakeAirtable.generatedTasks(count: taskCount, projects: count))
    defer { big.stop() }
    // The schema remembered, so the board reads into its copy from the start.
    _ = Measure.run(tracker, ["list", "--limit", "1"], environment: bigEnvironment)
    do {
        let board = try BoardTerminalProcess(tracker, environment: bigEnvironment, columns: 160, rows: 40)
        _ = board.wait(for: "deletions by", timeout: 900)
        // Wait for the tasks' listing to finish: the fake is idle when tracker is.
        waitUntilIdle(big, for: 2)
        let peak = peakMiB(board.process.processIdentifier) ?? 0
        board.quit()
        print(
            String(
                format: "  board keeping %d projects and %d tasks: peak RSS %.1f MiB (goal ≤ 150)", count, taskCount,
                peak))
    }
}

/// Returns once `fake` has answered at most `allowing` requests in `seconds` (a listing at 5 a second sends more).
func waitUntilIdle(_ fake: FakeAirtable, for seconds: Double, allowing: Int = 0) {
    var last = -1_000
    while fake.recordLog.count - last > allowing {
        last = fake.recordLog.count
        Thread.sleep(forTimeInterval: seconds)
    }
}

/// A process's peak resident set (VmHWM) in MiB.
/// The CPU seconds (user and system) process `pid` has used so far, from /proc.
func cpuSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func peakMiB(_ pid: Int32) -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
}
