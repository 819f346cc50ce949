import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `tracker board` on a pseudo-terminal of the benchmark's own (no `script`, shell or `stty` in between, so what is
/// timed is tracker's): keys written in, every byte it draws read back, the time between them measured.
final class BoardTerminalProcess: @unchecked Sendable {
    let process = Process()
    private let terminal: Int32
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
        let (terminal, side) = try Self.openTerminal(columns: columns, rows: rows)
        self.terminal = terminal
        process.executableURL = URL(fileURLWithPath: tracker)
        process.arguments = arguments.split(separator: " ").map(String.init)
        process.environment = environment
        let handle = FileHandle(fileDescriptor: side, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            close(side)
            close(terminal)
            throw error
        }
        close(side)
        let reader = Thread { [self] in readUntilEnd() }
        reader.start()
    }

    /// A pseudo-terminal pair sized `columns` × `rows`: the side kept, and the side tracker is given.
    private static func openTerminal(columns: Int, rows: Int) throws -> (Int32, Int32) {
        // Linux's multiplexer, by hand: Swift does not see posix_openpt and its kin, nor the ioctl macros
        // (TIOCSPTLCK unlocks the pair, TIOCGPTN names it).
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var locked: Int32 = 0
        var number: UInt32 = 0
        guard terminal >= 0, ioctl(terminal, 0x4004_5431, &locked) == 0, ioctl(terminal, 0x8004_5430, &number) == 0
        else { throw CocoaError(.fileReadUnknown) }
        let side = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard side >= 0 else { throw CocoaError(.fileReadUnknown) }
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(side, UInt(TIOCSWINSZ), &size)
        return (terminal, side)
    }

    /// Reads what tracker draws until its side closes (EIO once no process holds it).
    private func readUntilEnd() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(terminal, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            lock.lock()
            if count <= 0 {
                ended = true
            } else {
                received.append(contentsOf: buffer[0..<count])
                arrivals.append((received.count, Date()))
            }
            lock.broadcast()
            lock.unlock()
            if count <= 0 { return }
        }
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

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
    }

    /// CPU seconds tracker has used.
    var cpuSeconds: Double { benchmark.cpuSeconds(process.processIdentifier) }

    func quit() {
        type("q")
        process.waitUntilExit()
        // The reader stops at EIO once tracker's side is gone; the kept side is closed after it.
        lock.lock()
        let deadline = Date().addingTimeInterval(5)
        while !ended && lock.wait(until: deadline) {}
        lock.unlock()
        close(terminal)
    }
}
