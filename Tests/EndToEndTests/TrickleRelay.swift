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
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        guard bound, listen(descriptor, 4) == 0 else { throw XCTSkip("no free loopback port") }
        Thread.detachNewThread { [self] in accepting() }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func accepting() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstream)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(client)
                close(server)
                continue
            }
            Thread.detachNewThread { Self.copy(from: client, to: server) }
            Thread.detachNewThread { [self] in relayRecords(from: server, to: client) }
        }
    }

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
