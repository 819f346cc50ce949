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

/// A request as the fake server read it off the socket.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded.
    public var path: String
    /// The raw query string, without the `?`.
    public var query: String
    /// The request target exactly as sent: path and query, still percent-encoded.
    public var target: String
    public var headers: [String: String]
    public var body: Data
    /// Whether it is the first request read off its connection.
    public var isFirstOnConnection = false

    /// A header by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the server does with a request: answer it, or misbehave in one of the ways real networks do.
public enum HTTPAction: Sendable {
    case respond(status: Int, headers: [String: String], body: Data)
    /// Close the connection without a word.
    case close
    /// Abort the connection with a TCP reset.
    case reset
    /// Send the headers and part of the body, then close.
    case truncate(status: Int, headers: [String: String], body: Data)
    /// Send the headers and part of the body, then abort with a TCP reset.
    case resetMidBody(status: Int, headers: [String: String], body: Data)
    /// Say nothing for this long, then close.
    case stall(seconds: Double)
    /// Send the headers, then stall before the body.
    case stallBody(seconds: Double, status: Int, headers: [String: String], body: Data)
}

/// A minimal HTTP/1.1 server on 127.0.0.1 with keep-alive, one thread per connection; good enough for one client.
final class HTTPServer: @unchecked Sendable {
    private let handler: @Sendable (HTTPRequest) -> HTTPAction
    private var listener: Int32 = -1
    private(set) var port = 0
    private let lock = Locked(())
    private var connections: Set<Int32> = []
    private var isStopped = false
    private var acceptedCount = 0

    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPAction) {
        self.handler = handler
    }

    /// Binds to an ephemeral loopback port (or `port`) and starts accepting.
    func start(port requested: Int = 0, host: String = "127.0.0.1") throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(requested).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        _ = DetachedThread.start { [self] in acceptLoop() }
    }

    /// Stops accepting and closes every open connection.
    func stop() {
        // Connections are shut down under the lock, and closed only under it (after serving), so a number closed
        // and reused by another socket in this process is never shut down here.
        lock.withLock { _ in
            // Once only: the listener's number may belong to another socket after the accept loop has closed it.
            guard !isStopped else { return }
            isStopped = true
            // Shut down, not closed: the accept loop closes it once it has returned, so the descriptor's number cannot
            // be reused by another socket (another server's, in tests that run in parallel) while the loop still
            // accepts on it.
            shutdown(listener, Int32(SHUT_RDWR))
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    /// How many connections clients have opened so far.
    var connectionsAccepted: Int { lock.withLock { _ in acceptedCount } }

    private var stopped: Bool { lock.withLock { _ in isStopped } }

    private func acceptLoop() {
        defer { close(listener) }
        while !stopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            if stopped {
                close(connection)
                return
            }
            var yes: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            lock.withLock { _ in
                connections.insert(connection)
                acceptedCount += 1
            }
            _ = DetachedThread.start { [self] in
                serve(connection)
                lock.withLock { _ in
                    connections.remove(connection)
                    close(connection)
                }
            }
        }
    }

    private func serve(_ connection: Int32) {
        var reader = SocketReader(socket: connection)
        var isFirst = true
        while !stopped, var request = reader.readRequest() {
            request.isFirstOnConnection = isFirst
            isFirst = false
            let keepAlive = request.header("connection")?.lowercased() != "close"
            switch handler(request) {
            case .respond(let status, let headers, let body) where headers["Transfer-Encoding"] == "chunked":
                // Chunks of 1,000 bytes and the last, empty one; no Content-Length.
                var data = head(status, headers, length: nil, keepAlive: keepAlive)
                var start = body.startIndex
                while start < body.endIndex {
                    let end = min(start + 1000, body.endIndex)
                    data += Data((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + Data("\r\n".utf8)
                    start = end
                }
                guard send(connection, data + Data("0\r\n\r\n".utf8)) else { return }
                if !keepAlive { return }
            case .respond(let status, let headers, let body):
                guard send(connection, head(status, headers, length: body.count, keepAlive: keepAlive) + body) else {
                    return
                }
                if !keepAlive { return }
            case .close:
                return
            case .reset:
                abort(connection)
                return
            case .resetMidBody(let status, let headers, let body):
                _ = send(
                    connection,
                    head(status, headers, length: body.count, keepAlive: true) + body.prefix(body.count / 2))
                // Long enough for the client to have read what was sent, so the reset lands mid-body.
                usleep(100_000)
                abort(connection)
                return
            case .truncate(let status, let headers, let body):
                _ = send(
                    connection,
                    head(status, headers, length: body.count, keepAlive: true) + body.prefix(body.count / 2))
                return
            case .stall(let seconds):
                pause(seconds)
                return
            case .stallBody(let seconds, let status, let headers, let body):
                _ = send(connection, head(status, headers, length: body.count, keepAlive: true))
                pause(seconds)
                return
            }
        }
    }

    /// Closes with a TCP reset instead of an orderly FIN.
    private func abort(_ connection: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    private func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !stopped && Date() < end { usleep(20_000) }
    }

    private func head(_ status: Int, _ headers: [String: String], length: Int?, keepAlive: Bool) -> Data {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "application/json; charset=utf-8" }
        if let length { all["Content-Length"] = String(length) }
        // Every answer of Airtable's carries the server's time, which is what "changed since" is measured by.
        if all["Date"] == nil { all["Date"] = Self.httpDate(Date()) }
        all["Connection"] = keepAlive ? "keep-alive" : "close"
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// `Wed, 21 Oct 2015 07:28:00 GMT`.
    static func httpDate(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970)
        let days = seconds / 86400
        let day = CalendarDate(dayNumber: days)
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        let clock = seconds % 86400
        return "\(names[days % 7]), \(two(day.day)) \(months[day.month - 1]) \(day.year) "
            + "\(two(clock / 3600)):\(two(clock / 60 % 60)):\(two(clock % 60)) GMT"
    }

    private func send(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(
                    connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 413: "Request Entity Too Large"
        case 414: "Request-URI Too Large"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// Reads HTTP/1.1 requests (Content-Length bodies, `Expect: 100-continue`) from one socket.
private struct SocketReader {
    var socket: Int32
    var buffer = Data()

    mutating func readRequest() -> HTTPRequest? {
        let separator = Data("\r\n\r\n".utf8)
        var found = buffer.firstRange(of: separator)
        while found == nil {
            guard fill() else { return nil }
            found = buffer.firstRange(of: separator)
        }
        guard let headEnd = found else { return nil }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex..<headEnd.upperBound)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingWhitespace()
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        if headers["expect"]?.lowercased() == "100-continue" {
            let reply = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { Glibc.send(socket, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        while buffer.count < length {
            guard fill() else { return nil }
        }
        let body = buffer.prefix(length)
        buffer.removeFirst(length)
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return HTTPRequest(
            method: String(requestLine[0]),
            path: String(parts[0]).percentDecoded ?? String(parts[0]),
            query: parts.count > 1 ? String(parts[1]) : "", target: target, headers: headers, body: Data(body))
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
