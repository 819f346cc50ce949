import Foundation
import XCTest

@testable import TrackerNetwork

#if canImport(Glibc)
    import Glibc
#endif

/// A Redis that says what a test scripts: garbage, a lie, an answer lost. It listens on a free loopback port, reads
/// each command as RESP and answers with what `answer` returns for it (the connection's number from 0, the words).
final class ScriptedRedis: @unchecked Sendable {
    /// What to do with one command.
    enum Reply {
        /// Send these bytes.
        case bytes([UInt8])
        /// Send these bytes one at a time, `pause` seconds apart.
        case trickle([UInt8], pause: Double)
        /// Close the connection without answering.
        case hangUp
    }

    let port: Int
    private let listener: Int32
    private let answer: @Sendable (Int, [String]) -> Reply
    private let state = NSLock()
    private var stopped = false
    private var connections = 0

    init(answer: @escaping @Sendable (_ connection: Int, _ words: [String]) -> Reply) throws {
        self.answer = answer
        (listener, port) = try LoopbackSocket.listen()
        LoopbackSocket.acceptEach(on: listener) { [self] client in
            state.lock()
            let number = connections
            connections += 1
            state.unlock()
            Thread.detachNewThread { [self] in serve(client, number) }
        }
    }

    deinit { stop() }

    var url: String { "redis://127.0.0.1:\(port)" }

    func stop() {
        state.lock()
        defer { state.unlock() }
        guard !stopped else { return }
        stopped = true
        LoopbackSocket.stop(listener)
    }

    private func serve(_ client: Int32, _ number: Int) {
        defer { close(client) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            while let (value, next) = try? RESP.parse(buffer) {
                buffer.removeFirst(next)
                guard case .array(let items?) = value else { return }
                let words = items.compactMap(\.text)
                switch answer(number, words) {
                case .bytes(let bytes): guard send(client, bytes) else { return }
                case .trickle(let bytes, let pause):
                    for byte in bytes {
                        guard send(client, [byte]) else { return }
                        usleep(useconds_t(pause * 1_000_000))
                    }
                case .hangUp: return
                }
            }
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            buffer += chunk[0..<count]
        }
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// What a plain Redis answers tracker's other commands with: a wait of 0 from the budget script, a renewal or
    /// release that held, PONG, a clock.
    static func ordinary(_ words: [String]) -> Reply {
        switch words.first?.uppercased() {
        case "EVALSHA", "EVAL": .bytes(Array(":1\r\n".utf8))
        case "PING": .bytes(Array("+PONG\r\n".utf8))
        case "TIME":
            .bytes(Array("*2\r\n$10\r\n\(Int(Date().timeIntervalSince1970))\r\n$1\r\n0\r\n".utf8))
        default: .bytes(Array("+OK\r\n".utf8))
        }
    }
}
