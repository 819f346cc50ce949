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
import TrackerSystem

/// An HTTP/1.1 server on an IPv4 address: keep-alive, a thread a connection, and `limits` on what one client may take
/// (its head and body, its time to send them, its time to read the answer, how many connect at once). The project's
/// one server: the fake Airtable's and `tracker serve`'s.
public final class HTTPServer: @unchecked Sendable {
    private let handler: @Sendable (ServedRequest) -> HTTPAction
    public let limits: HTTPLimits
    private var listener: Int32 = -1
    public private(set) var port = 0
    private let lock = Locked(())
    private var connections: Set<Int32> = []
    private var isStopped = false
    private var acceptedCount = 0
    /// What a new connection goes through before its first request is read, on its own thread (the fake Airtable's
    /// network handshake): the note every request on it carries, or nil to close it. Set before `start`.
    public var opening: (@Sendable (Int32) -> String?)?

    public init(limits: HTTPLimits = .generous, handler: @escaping @Sendable (ServedRequest) -> HTTPAction) {
        self.limits = limits
        self.handler = handler
    }

    /// Binds to `host` (an IPv4 address) on `port` (0: an ephemeral one, then in `port`) and starts accepting.
    public func start(port requested: Int = 0, host: String = "127.0.0.1") throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: requested).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw POSIXError(.EINVAL) }
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            let code = errno
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        _ = DetachedThread.start { [self] in acceptLoop() }
    }

    /// Stops accepting and closes every open connection.
    public func stop() {
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
    public var connectionsAccepted: Int { lock.withLock { _ in acceptedCount } }

    /// How many connections are open now.
    public var connectionsOpen: Int { lock.withLock { _ in connections.count } }

    private var stopped: Bool { lock.withLock { _ in isStopped } }

    private func acceptLoop() {
        defer { close(listener) }
        while !stopped {
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let connection = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            if stopped {
                close(connection)
                return
            }
            configure(connection)
            let admitted = lock.withLock { _ -> Bool in
                guard connections.count < limits.connections else { return false }
                connections.insert(connection)
                acceptedCount += 1
                return true
            }
            guard admitted else {
                // Full: said at once, and the connection closed (a client retries; nobody else waits for it).
                _ = send(connection, head(503, ["Retry-After": "1"], length: 0, keepAlive: false))
                close(connection)
                continue
            }
            let address = Self.describe(peer)
            _ = DetachedThread.start { [self] in
                serve(connection, peer: address)
                lock.withLock { _ in
                    connections.remove(connection)
                    close(connection)
                }
            }
        }
    }

    /// No delay for small writes, and a bound on each write: a client that stops reading is dropped, not waited for.
    private func configure(_ connection: Int32) {
        var yes: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        let seconds = limits.sendSeconds
        var bound = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func describe(_ peer: sockaddr_in) -> String {
        var address = peer.sin_addr
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &address, &text, socklen_t(INET_ADDRSTRLEN))
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self) + ":\(UInt16(bigEndian: peer.sin_port))"
    }

    private func serve(_ connection: Int32, peer: String) {
        var note = ""
        if let opening {
            guard let said = opening(connection) else { return }
            note = said
        }
        var reader = RequestReader(socket: connection, limits: limits)
        var isFirst = true
        while !stopped {
            var request: ServedRequest
            switch reader.next(waiting: isFirst ? limits.readSeconds : limits.idleSeconds) {
            case .request(let read): request = read
            case .ended: return
            case .refused(let status):
                _ = send(connection, head(status, [:], length: 0, keepAlive: false))
                return
            }
            request.isFirstOnConnection = isFirst
            request.peer = peer
            request.connectionNote = note
            isFirst = false
            let keepAlive = request.header("connection")?.lowercased() != "close"
            guard answer(handler(request), on: connection, keepAlive: keepAlive), keepAlive else { return }
        }
    }

    /// Carries out `action`; true when the connection may serve another request.
    private func answer(_ action: HTTPAction, on connection: Int32, keepAlive: Bool) -> Bool {
        switch action {
        case .respond(let status, let headers, let body) where headers["Transfer-Encoding"] == "chunked":
            // Chunks of 1,000 bytes and the last, empty one; no Content-Length.
            var data = head(status, headers, length: nil, keepAlive: keepAlive)
            var start = body.startIndex
            while start < body.endIndex {
                let end = min(start + 1000, body.endIndex)
                data += Data((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + Data("\r\n".utf8)
                start = end
            }
            return send(connection, data + Data("0\r\n\r\n".utf8))
        case .respond(let status, let headers, let body):
            return send(connection, head(status, headers, length: body.count, keepAlive: keepAlive) + body)
        case .stream(let status, let headers, let write):
            var all = headers
            all["Transfer-Encoding"] = "chunked"
            guard send(connection, head(status, all, length: nil, keepAlive: false)) else { return false }
            write(ResponseStream { [self] in send(connection, $0) })
            _ = send(connection, Data("0\r\n\r\n".utf8))
            return false
        case .close:
            return false
        case .reset:
            abort(connection)
            return false
        case .resetMidBody(let status, let headers, let body):
            _ = send(
                connection, head(status, headers, length: body.count, keepAlive: true) + body.prefix(body.count / 2))
            // Long enough for the client to have read what was sent, so the reset lands mid-body.
            usleep(100_000)
            abort(connection)
            return false
        case .truncate(let status, let headers, let body):
            _ = send(
                connection, head(status, headers, length: body.count, keepAlive: true) + body.prefix(body.count / 2))
            return false
        case .stall(let seconds):
            pause(seconds)
            return false
        case .stallBody(let seconds, let status, let headers, let body):
            _ = send(connection, head(status, headers, length: body.count, keepAlive: true))
            pause(seconds)
            return false
        }
    }

    /// Closes with a TCP reset instead of an orderly FIN.
    private func abort(_ connection: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    private func pause(_ seconds: Double) {
        let end = MonotonicClock.now() + seconds
        while !stopped && MonotonicClock.now() < end { usleep(20_000) }
    }

    private func head(_ status: Int, _ headers: [String: String], length: Int?, keepAlive: Bool) -> Data {
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reason(status))\r\n"
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "application/json; charset=utf-8" }
        if let length { all["Content-Length"] = String(length) }
        // Every answer carries the server's time (Airtable's: what "changed since" is measured by).
        if all["Date"] == nil { all["Date"] = HTTPStatus.date(Date()) }
        all["Connection"] = keepAlive ? "keep-alive" : "close"
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// Sends all of `data`; false when the client is gone or did not read it within the send bound.
    private func send(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(
                    connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
