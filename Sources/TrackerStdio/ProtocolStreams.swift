#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel
import TrackerSystem

/// What arrives on the server's input.
package enum InputEvent: Sendable {
    case line(Data)
    /// A line longer than the limit, discarded up to its newline.
    case tooLong
    /// End of input, or a signal to stop.
    case end
}

/// Reads stdin on a thread of its own, one message a line; a line over `maximumLine` bytes is never held whole.
package enum InputLines {
    /// 4 MiB, docs/contract.md "The faces".
    package static let maximumLine = 4 << 20

    package static func read(
        _ descriptor: Int32, into continuation: AsyncStream<InputEvent>.Continuation,
        maximumLine: Int = InputLines.maximumLine
    ) {
        let started = DetachedThread.start {
            var pending: [UInt8] = []
            var discarding = false
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { POSIX.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                var start = 0
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                    if discarding {
                        discarding = false
                    } else {
                        pending.append(contentsOf: buffer[start..<index])
                        if pending.count > maximumLine {
                            continuation.yield(.tooLong)
                        } else {
                            emit(pending, continuation)
                        }
                    }
                    pending.removeAll(keepingCapacity: pending.count < 1 << 20)
                    start = index + 1
                }
                if !discarding { pending.append(contentsOf: buffer[start..<count]) }
                if pending.count > maximumLine {
                    pending = []
                    discarding = true
                    continuation.yield(.tooLong)
                }
            }
            if !discarding, !pending.isEmpty { emit(pending, continuation) }
            continuation.yield(.end)
            continuation.finish()
        }
        if !started {
            continuation.yield(.end)
            continuation.finish()
        }
    }

    private static func emit(_ bytes: [UInt8], _ continuation: AsyncStream<InputEvent>.Continuation) {
        var line = bytes
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        // Blank lines between messages are not messages.
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        continuation.yield(.line(Data(line)))
    }
}

/// Writes protocol messages, one a line, on a descriptor nothing else writes to.
package final class MessageWriter: Sendable {
    private let descriptor: Int32
    private let lock = Locked(false)
    /// The token, masked wherever it would appear (text from the base included).
    private let secret: @Sendable () -> String?
    /// Called once when the reader has gone (EPIPE).
    private let closed: @Sendable () -> Void

    package init(descriptor: Int32, secret: @escaping @Sendable () -> String?, closed: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.secret = secret
        self.closed = closed
    }

    /// Sends one message as one line: compact JSON, whose strings escape every newline.
    package func send(_ message: JSONValue) {
        var line = message.serialized()
        if let secret = secret(), secret.count >= 8, line.contains(secret) {
            line = line.replacing(secret, with: TokenMask.masked(secret))
        }
        line += "\n"
        let code = lock.withLock { gone -> Int32 in
            guard !gone else { return EPIPE }
            let code = FileDescriptorWriter.write(line, to: descriptor)
            if code == EPIPE { gone = true }
            return code
        }
        if code == EPIPE { closed() }
    }

    /// Moves standard output aside for the protocol and points descriptor 1 at stderr, so a stray write by anything
    /// in the process (or a program it starts) can never reach the client as a message.
    package static func takeStandardOutput() -> Int32 {
        let protocolDescriptor = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard protocolDescriptor >= 0 else { return STDOUT_FILENO }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        return protocolDescriptor
    }
}
