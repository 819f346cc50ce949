#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A client's connection to a server on 127.0.0.1, spoken in plain bytes: the fake's pings to a notification URL, the
/// tests' requests to `serve` and the benchmark's kept-alive clients. (No HTTP client library: FoundationNetworking
/// stays unlinked, and libcurl is tracker's transport to Airtable, not a test's.)
public final class LoopbackConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `port`; a read waits at most `timeout` seconds. Nil when nothing listens there.
    public init?(port: Int, timeout: Double = 30) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        guard let port = UInt16(exactly: port) else {
            close(descriptor)
            return nil
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        let whole = Int(timeout)
        var bound = timeval(tv_sec: whole, tv_usec: Int((timeout - Double(whole)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(descriptor) }

    /// The head of a request: its line, the headers in name order and the body's length.
    public static func head(
        _ method: String, _ path: String, port: Int, headers: [String: String], bodyLength: Int, closing: Bool
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if closing { head += "Connection: close\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        return Array((head + "Content-Length: \(bodyLength)\r\n\r\n").utf8)
    }

    /// Sends `bytes` whole (a peer that has gone is not a signal: MSG_NOSIGNAL).
    public func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { sendWithoutSignal(descriptor, $0) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Everything the server sends until it closes the connection (or a read times out).
    public func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// One answer on a kept connection: its status, headers (names in lower case) and body by its Content-Length.
    /// Status 0 when the connection ended first.
    public func readAnswer() -> (status: Int, headers: [String: String], body: [UInt8]) {
        var end = Self.endOfHead(buffer)
        while end == nil {
            guard fill() else { return (0, [:], []) }
            end = Self.endOfHead(buffer)
        }
        let (status, headers) = Self.parseHead(Array(buffer[..<end!]))
        buffer.removeFirst(end! + 4)
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        while buffer.count < length { guard fill() else { return (status, headers, []) } }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return (status, headers, body)
    }

    /// Where a head ends (its blank line), if it has.
    public static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// A head's status and headers (names in lower case).
    public static func parseHead(_ head: [UInt8]) -> (status: Int, headers: [String: String]) {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingWhitespace()
        }
        return (status, headers)
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}

/// `send(2)` without SIGPIPE for a peer that has gone (outside the type, whose `send` would shadow it).
private func sendWithoutSignal(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
}
