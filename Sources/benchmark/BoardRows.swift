import FakeAirtable
import Foundation

/// `tracker board` on a pseudo-terminal (util-linux `script` gives it one): keys written in, every byte it draws read
/// back, the time between them measured.
final class BoardTerminalProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lock = NSCondition()
    private var received = Data()
    /// When each piece of output arrived: the length received by then.
    private var arrivals: [(length: Int, at: Date)] = []
    private var ended = false

    init(
        _ tracker: String, environment: [String: String], columns: Int = 80, rows: Int = 24, arguments: String = "board"
    ) throws {
        var environment = environment
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", "stty cols \(columns) rows \(rows); exec '\(tracker)' \(arguments)", "/dev/null"]
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            if data.isEmpty {
                self.ended = true
            } else {
                self.received.append(data)
                self.arrivals.append((self.received.count, Date()))
            }
            self.lock.broadcast()
            self.lock.unlock()
        }
        try process.run()
    }

    /// Bytes received so far.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return received.count
    }

    /// Waits until what arrived after `offset` holds `text`; the seconds it took, or nil after `timeout`.
    func wait(for text: String, after offset: Int = 0, timeout: Double = 120) -> Double? {
        let started = Date()
        let needle = Data(text.utf8)
        lock.lock()
        defer { lock.unlock() }
        while received.count < offset || received[offset...].range(of: needle) == nil {
            if ended || !lock.wait(until: started.addingTimeInterval(timeout)) { return nil }
        }
        return Date().timeIntervalSince(started)
    }

    /// When `text` was first drawn (the arrival of the output that completed it); waits up to `timeout` for it.
    func drawn(_ text: String, timeout: Double = 120) -> Date? {
        guard wait(for: text, timeout: timeout) != nil else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let end = received.range(of: Data(text.utf8))?.upperBound else { return nil }
        return arrivals.first { $0.length >= end }?.at
    }

    func type(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// The pid of tracker itself (script's child).
    var trackerPID: Int32? {
        let children =
            (try? String(
                contentsOfFile: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children",
                encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.first
    }

    /// CPU seconds tracker has used.
    var cpuSeconds: Double {
        guard let pid = trackerPID, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func quit() {
        type("q")
        process.waitUntilExit()
    }
}

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
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
        print("  board: util-linux script is not installed; skipped")
        return
    }
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
