import FakeAirtable
import Foundation

/// The board's first screen against answers 300 ms late, cold and with the schema remembered: the time to the first
/// card, in round trips.
@MainActor func firstScreenRows() throws {
    let (slow, slowEnvironment) = try serve(FakeAirtable.recordedProjects, latency: 0.3)
    defer { slow.stop() }
    for label in ["first screen, nothing remembered", "first screen, schema remembered"] {
        let started = Date()
        let board = try BoardTerminalProcess(tracker, environment: slowEnvironment)
        // The first frame with a card on it: the first page has arrived.
        _ = board.wait(for: "CMCA")
        let wall = Date().timeIntervalSince(started)
        board.quit()
        print(
            String(
                format: "  board %@ %6.0f ms  (%.1f round trips of 300 ms)",
                label.padding(toLength: 34, withPad: " ", startingAt: 0),
                wall * 1000, wall / 0.3))
    }
}

/// The board's rows: round trips before the first screen (answers 300 ms late, cold and warm), the time to redraw
/// after a key press with 1,000 and 50,000 projects (median of `presses`) and the bytes one press writes, and the CPU
/// of a board left idle for `idle` seconds.
@MainActor func boardRows(presses: Int, idle: Double) throws {
    try firstScreenRows()

    for count in [1_000, 50_000] {
        let (fake, environment) = try serve(FakeAirtable.generatedProjects(count: count))
        let started = Date()
        let board = try BoardTerminalProcess(tracker, environment: environment)
        _ = board.wait(for: "Project ", timeout: 300)
        let first = Date().timeIntervalSince(started)
        _ = board.wait(for: "projects · read ", timeout: 600)
        let loaded = Date().timeIntervalSince(started)
        var times: [Double] = []
        var bytes: [Int] = []
        for index in 0..<presses {
            let offset = board.count
            board.type(index % 2 == 0 ? "j" : "k")
            if let seconds = board.wait(for: "\u{1B}[?2026l", after: offset, timeout: 10) {
                times.append(seconds)
                usleep(20_000)
                bytes.append(board.count - offset)
            }
        }
        board.quit()
        fake.stop()
        times.sort()
        bytes.sort()
        let median = times.isEmpty ? 0 : times[times.count / 2]
        print(
            String(
                format:
                    "  board, %6d projects: first screen %.2f s, all read %.2f s; redraw after a key %.2f ms (median of %d), %d bytes a press",
                count, first, loaded, median * 1000, times.count, bytes.isEmpty ? 0 : bytes[bytes.count / 2]))
    }

    let (fake, environment) = try serve(FakeAirtable.recordedProjects)
    let board = try BoardTerminalProcess(tracker, environment: environment)
    _ = board.wait(for: "projects · read ")
    let before = board.cpuSeconds
    Thread.sleep(forTimeInterval: idle)
    let used = board.cpuSeconds - before
    board.quit()
    fake.stop()
    print(String(format: "  board left idle for %.0f s: %.3f s of CPU", idle, used))
}
