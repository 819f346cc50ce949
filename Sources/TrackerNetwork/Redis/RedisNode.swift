import CCurl
import TrackerSystem
import TrackerModel

/// What a cluster or a replica answers instead of doing a command: where to send it.
enum Redirection: Equatable {
    /// The slot lives on another node now: remember it there.
    case moved(slot: Int, node: String)
    /// Ask that node this once (a slot being migrated).
    case ask(node: String)
    /// A replica refused a write.
    case readOnly

    init?(_ answer: RESPValue) {
        guard case .error(let text) = answer else { return nil }
        let words = text.split(separator: " ")
        switch words.first {
        case "MOVED" where words.count == 3:
            guard let slot = Int(words[1]), (0..<ClusterSlot.count).contains(slot) else { return nil }
            self = .moved(slot: slot, node: String(words[2]))
        case "ASK" where words.count == 3: self = .ask(node: String(words[2]))
        case "READONLY": self = .readOnly
        default: return nil
        }
    }
}

/// A key's hash slot, as Redis Cluster computes it: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16,384.
enum ClusterSlot {
    static let count = 16384

    static func of(_ key: String) -> Int {
        var bytes = Array(key.utf8)
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
            let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
        {
            bytes = Array(bytes[(open + 1)..<close])
        }
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return Int(crc) % count
    }

    /// The key a command of tracker's acts on (a script's first key), nil for commands without one.
    static func key(of words: [String]) -> String? {
        guard let name = words.first?.uppercased() else { return nil }
        switch name {
        case "EVAL", "EVALSHA":
            guard words.count > 3, let count = Int(words[2]), count > 0 else { return nil }
            return words[3]
        case "PING", "TIME", "AUTH", "SELECT", "ASKING", "ROLE", "SCRIPT", "INFO", "CLUSTER", "HELLO": return nil
        default: return words.count > 1 ? words[1] : nil
        }
    }
}

/// One connection to one Redis node: its stream, what it has read and not yet parsed.
final class RedisNode {
    let address: RedisAddress
    let connectTimeout: Double
    let answerTimeout: Double
    private var stream: UnsafeMutableRawPointer?
    private var buffer: [UInt8] = []

    init(address: RedisAddress, connectTimeout: Double, answerTimeout: Double) {
        self.address = address
        self.connectTimeout = connectTimeout
        self.answerTimeout = answerTimeout
    }

    deinit { tracker_curl_stream_close(stream) }

    var isOpen: Bool { stream != nil }

    func close() {
        tracker_curl_stream_close(stream)
        stream = nil
        buffer = []
    }

    /// The plain socket's answer to an address it cannot take without resolving it (libcurl's "unsupported protocol"
    /// number, which a connection never otherwise gives).
    private static let notNumeric: Int32 = 3

    func open() throws(RedisFailure) {
        var code: Int32 = 0
        var error = [CChar](repeating: 0, count: 256)
        let milliseconds = Int(connectTimeout * 1000)
        var opened: UnsafeMutableRawPointer? = nil
        // Without TLS, at a numeric address or a socket's path, a plain socket: a process that speaks only to Redis
        // (a board following the team's copy) then never loads libcurl and the ~30 libraries behind it (CPU that ten
        // boards opened together on two cores wait for: the benchmark's boards row). The socket takes numeric addresses alone (code 3
        // for any other): a host name goes through libcurl, whose resolver keeps to the connection's time limit.
        let plain = address.plainSocketTarget
        if let (host, port, path) = plain {
            opened = tracker_socket_stream_open(host, Int32(port), path, milliseconds, &code, &error)
        }
        if opened == nil, plain == nil || code == Self.notNumeric {
            code = 0
            let (url, unixPath) = address.curlTarget
            opened = tracker_curl_stream_open(
                url, unixPath, address.certificateAuthority, milliseconds, &code, &error)
        }
        guard let opened else {
            let words = String(decoding: error.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let within = RedisConnection.seconds(connectTimeout)
            // Connected, but the TLS handshake got no answer: most often a Redis without TLS at a rediss:// address.
            if code == 28 && words.contains("SSL") {
                throw .unreachable(
                    "the TLS handshake failed: no answer within \(within) (a Redis without TLS? then redis://)")
            }
            if code == 28 { throw .unreachable("no connection within \(within)") }
            throw .unreachable(RedisConnection.describe(code: code, words: words))
        }
        stream = opened
        // Credentials and the database go before anything else.
        var hello: [[String]] = []
        if let password = address.password {
            hello.append(["AUTH"] + (address.user.map { [$0] } ?? []) + [password])
        }
        if address.database != 0 { hello.append(["SELECT", "\(address.database)"]) }
        guard !hello.isEmpty else { return }
        // Any refusal here (a wrong password, an unknown user, a database it lacks) is the configuration's to fix.
        for answer in try exchange(hello) {
            if case .error(let text) = answer { throw RedisFailure.misconfigured(text) }
        }
    }

    /// Whether the last exchange failed for want of an answer in time (Redis is there, and slow), not a lost connection.
    private(set) var timedOut = false

    func exchange(_ commands: [[String]]) throws(RedisFailure) -> [RESPValue] {
        let bytes = commands.flatMap(RESP.command)
        let deadline = MonotonicClock.now() + answerTimeout
        let sent = bytes.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) {
                tracker_curl_stream_send(stream, $0.baseAddress, $0.count, Int(answerTimeout * 1000))
            }
        }
        guard sent == 0 else { throw .unreachable(RedisConnection.describe(code: sent, words: "")) }
        var answers: [RESPValue] = []
        var chunk = [CChar](repeating: 0, count: 16384)
        timedOut = false
        let late = RedisFailure.unreachable("it did not answer within \(RedisConnection.seconds(answerTimeout))")
        while answers.count < commands.count {
            do {
                while answers.count < commands.count, try RESP.holdsWholeValue(buffer),
                    let (value, next) = try RESP.parse(buffer)
                {
                    answers.append(value)
                    buffer.removeFirst(next)
                }
            } catch {
                throw .unreachable("its answer could not be read (\(error.reason))")
            }
            if answers.count == commands.count { break }
            let left = deadline - MonotonicClock.now()
            guard left > 0 else {
                timedOut = true
                throw late
            }
            var received = 0
            let code = tracker_curl_stream_receive(stream, &chunk, chunk.count, &received, max(1, Int(left * 1000)))
            if code == 28 {
                timedOut = true
                throw late
            }
            guard code == 0 else { throw .unreachable(RedisConnection.describe(code: code, words: "")) }
            guard received > 0 else { throw .unreachable("it closed the connection") }
            buffer += chunk[0..<received].map { UInt8(bitPattern: $0) }
            // A long answer (a batch of the team's copy) is read in larger pieces: each piece parses the answer from
            // its start again, so small pieces would make a long answer's reading quadratic.
            if received == chunk.count && chunk.count < 1 << 20 {
                chunk = [CChar](repeating: 0, count: chunk.count * 4)
            }
        }
        return answers
    }
}
