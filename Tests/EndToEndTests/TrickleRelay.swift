import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A relay in front of a TLS server that passes the handshake on at once and then sends each long TLS record to the
/// client a byte at a time: every byte wakes the client's poll, and no record is whole until long after any deadline.
final class TrickleRelay: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let upstream: Int
    private let longerThan: Int
    private let pause: Double

    /// Relays to `upstream` on loopback; records whose length passes `longerThan` go a byte each `pause` seconds.
    init(to upstream: Int, tricklingRecordsLongerThan longerThan: Int, pause: Double) throws {
        (self.upstream, self.longerThan, self.pause) = (upstream, longerThan, pause)
        (listener, port) = try LoopbackSocket.listen(backlog: 4)
        LoopbackSocket.acceptEach(on: listener) { [self] client in
            guard let server = LoopbackSocket.connect(port: upstream) else {
                close(client)
                return
            }
            Thread.detachNewThread { Self.copy(from: client, to: server) }
            Thread.detachNewThread { [self] in relayRecords(from: server, to: client) }
        }
    }

    deinit { LoopbackSocket.stop(listener) }

    private static func copy(from source: Int32, to target: Int32) {
        var chunk = [UInt8](repeating: 0, count: 16384)
        while case let count = recv(source, &chunk, chunk.count, 0), count > 0 {
            guard send(target, Array(chunk[0..<count])) else { break }
        }
        shutdown(target, Int32(SHUT_WR))
    }

    /// Reads whole records (a 5-byte header whose last two bytes are the length) and passes them on.
    private func relayRecords(from source: Int32, to target: Int32) {
        defer {
            close(target)
            close(source)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while case let count = recv(source, &chunk, chunk.count, 0), count > 0 {
            buffer += chunk[0..<count]
            while buffer.count >= 5, case let length = Int(buffer[3]) << 8 | Int(buffer[4]), buffer.count >= 5 + length
            {
                let record = Array(buffer[0..<5 + length])
                buffer.removeFirst(5 + length)
                if length <= longerThan {
                    guard Self.send(target, record) else { return }
                    continue
                }
                for byte in record {
                    guard Self.send(target, [byte]) else { return }
                    usleep(useconds_t(pause * 1_000_000))
                }
            }
        }
    }

    private static func send(_ target: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(target, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}
