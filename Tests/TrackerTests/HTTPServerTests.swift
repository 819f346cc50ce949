#if canImport(Glibc)
    import Foundation
    import Testing
    import Glibc

    @testable import TrackerHTTP

    /// The project's one HTTP server under `serve`'s limits: a client that stops reading, or sends too much, or too
    /// slowly, holds nobody else back.
    struct HTTPServerTests {
        private func connect(_ port: Int) -> Int32 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            var bound = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
            return socket
        }

        /// Sends `text` and reads the answer's first line.
        private func statusLine(_ port: Int, _ text: String) -> String {
            let socket = connect(port)
            defer { close(socket) }
            _ = Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(socket, &chunk, chunk.count, 0)
            let answer = String(decoding: chunk.prefix(max(0, count)), as: UTF8.self)
            return answer.components(separatedBy: "\r\n").first ?? ""
        }

        private func limits(connections: Int = 8) -> HTTPLimits {
            HTTPLimits(
                headerBytes: 1024, bodyBytes: 2048, connections: connections, readSeconds: 0.5, idleSeconds: 2,
                sendSeconds: 0.5)
        }

        @Test func aHeadOrABodyOverTheBoundsIsRefusedBeforeItIsRead() throws {
            let server = HTTPServer(limits: limits()) { _ in .respond(status: 200, headers: [:], body: Data()) }
            try server.start()
            defer { server.stop() }
            #expect(
                statusLine(server.port, "GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 2000))\r\n\r\n")
                    == "HTTP/1.1 431 Request Header Fields Too Large")
            #expect(
                statusLine(server.port, "POST / HTTP/1.1\r\nContent-Length: 999999\r\n\r\n")
                    == "HTTP/1.1 413 Content Too Large")
            #expect(
                statusLine(server.port, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
                    == "HTTP/1.1 411 Length Required")
            #expect(statusLine(server.port, "GET / HTTP/1.1\r\n\r\n") == "HTTP/1.1 200 OK")
        }

        /// The project's one loopback client: answers read one after another off one kept connection by their
        /// Content-Length, and nil where nothing listens.
        @Test func theLoopbackClientReadsAnswersOffAKeptConnection() throws {
            let server = HTTPServer(limits: limits()) { request in
                .respond(status: 200, headers: ["Content-Type": "text/plain"], body: Data(request.path.utf8))
            }
            try server.start()
            defer { server.stop() }
            let connection = try #require(LoopbackConnection(port: server.port, timeout: 5))
            for path in ["/first", "/second"] {
                connection.send(
                    LoopbackConnection.head("GET", path, port: server.port, headers: [:], bodyLength: 0, closing: false)
                )
                let answer = connection.readAnswer()
                #expect(answer.status == 200)
                #expect(answer.headers["content-type"] == "text/plain")
                #expect(String(decoding: answer.body, as: UTF8.self) == path)
            }
            server.stop()
            #expect(LoopbackConnection(port: server.port, timeout: 1) == nil)
        }

        @Test func aClientTricklingItsRequestIsDroppedAtTheReadBound() throws {
            let server = HTTPServer(limits: limits()) { _ in .respond(status: 200, headers: [:], body: Data()) }
            try server.start()
            defer { server.stop() }
            let socket = connect(server.port)
            defer { close(socket) }
            _ = Array("GET / HTTP/1.1\r\n".utf8).withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL))
            }
            let started = Date()
            var chunk = [UInt8](repeating: 0, count: 64)
            // Closed by the server once the read bound passes, with nothing answered.
            #expect(recv(socket, &chunk, chunk.count, 0) == 0)
            #expect(Date().timeIntervalSince(started) < 5)
        }

        @Test func oneConnectionTooManyIsToldToComeBack() throws {
            let server = HTTPServer(limits: limits(connections: 1)) { _ in
                .respond(status: 200, headers: [:], body: Data())
            }
            try server.start()
            defer { server.stop() }
            let held = connect(server.port)
            defer { close(held) }
            usleep(100_000)
            #expect(statusLine(server.port, "GET / HTTP/1.1\r\n\r\n") == "HTTP/1.1 503 Service Unavailable")
        }

        /// A client that never reads its event stream is dropped at the send bound, and meanwhile others are served
        /// (broken by a send without a bound: the stream's writer would wait for ever).
        @Test func aClientThatNeverReadsItsStreamIsDroppedAndHoldsNobodyBack() throws {
            let gaveUp = LockedFlag()
            let server = HTTPServer(limits: limits()) { request in
                guard request.path == "/stream" else { return .respond(status: 200, headers: [:], body: Data()) }
                return .stream(status: 200, headers: ["Content-Type": "text/event-stream"]) { stream in
                    let event = String(repeating: "x", count: 60_000)
                    for _ in 0..<10_000 where !gaveUp.isSet {
                        if !stream.event(event) { gaveUp.set() }
                    }
                }
            }
            try server.start()
            defer { server.stop() }
            let reader = connect(server.port)
            defer { close(reader) }
            var small = Int32(4096)
            setsockopt(reader, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            _ = Array("GET /stream HTTP/1.1\r\n\r\n".utf8).withUnsafeBytes {
                Glibc.send(reader, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL))
            }
            #expect(statusLine(server.port, "GET / HTTP/1.1\r\n\r\n") == "HTTP/1.1 200 OK")
            let deadline = Date().addingTimeInterval(10)
            while !gaveUp.isSet, Date() < deadline { usleep(20_000) }
            #expect(gaveUp.isSet, "the stream's writer still waits for a client that does not read")
        }
    }

    final class LockedFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
        func set() {
            lock.lock()
            value = true
            lock.unlock()
        }
    }
#endif
