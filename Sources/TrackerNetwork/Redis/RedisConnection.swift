import CCurl
import TrackerSystem
import TrackerModel

/// Why a Redis could not serve a call.
public enum RedisFailure: Error, Equatable, Sendable {
    /// Not reached in time, refused, closed, or its certificate not trusted: tracker carries on without it.
    case unreachable(String)
    /// It refused the password, the user or the database: a configuration to fix.
    case misconfigured(String)
    /// It answered a command with an error (a script's, a wrong type).
    case replied(String)

    /// Why, in words.
    public var reason: String {
        switch self {
        case .unreachable(let why): why
        case .misconfigured(let why): why
        case .replied(let why): why
        }
    }

    /// Whether the configuration is at fault (a password, a user, a database) rather than the Redis's reach.
    public var isMisconfiguration: Bool { if case .misconfigured = self { true } else { false } }
}

/// One connection to a Redis, opened when first needed and again after a fault, used by one call at a time.
///
/// Calls are pipelined: every command of a call goes in one write, and their answers are read back in one round trip.
/// A connection that fails is closed; the next call opens a new one, so a Redis that comes back is used at once.
public final class RedisConnection: @unchecked Sendable {
    public let address: RedisAddress
    /// How long connecting (TCP and TLS) may take, and how long an answer may.
    let connectTimeout: Double
    let answerTimeout: Double
    private let lock = Locked(())
    private var stream: UnsafeMutableRawPointer?
    private var buffer: [UInt8] = []

    public init(address: RedisAddress, connectTimeout: Double = 0.5, answerTimeout: Double = 1) {
        self.address = address
        self.connectTimeout = connectTimeout
        self.answerTimeout = answerTimeout
    }

    deinit { tracker_curl_stream_close(stream) }

    /// Sends `commands` in one write and returns their answers in order; an error answer is returned, not thrown.
    public func call(_ commands: [[String]]) throws(RedisFailure) -> [RESPValue] {
        let result = lock.withLock { _ -> Result<[RESPValue], RedisFailure> in
            // A kept connection may have died since its last use (a Redis restarted, an idle timeout): one more try on
            // a new one tells that from a Redis that is down.
            let kept = stream != nil
            for attempt in 0..<2 {
                do throws(RedisFailure) {
                    if stream == nil { try open() }
                    return .success(try exchange(commands))
                } catch {
                    close()
                    guard case .unreachable = error, kept, attempt == 0 else { return .failure(error) }
                }
            }
            return .failure(.unreachable("the connection was lost"))
        }
        return try result.get()
    }

    /// One command's answer; an error answer is thrown as `.replied`.
    public func command(_ words: [String]) throws(RedisFailure) -> RESPValue {
        let answer = try call([words])[0]
        if case .error(let text) = answer { throw Self.classify(text) }
        return answer
    }

    /// Runs a Lua script by its digest, sending its text only when this Redis does not have it yet (a restart, a
    /// flush): each script call stays one round trip. Several scripts go in one write.
    public func evaluate(_ calls: [(script: RedisScript, keys: [String], arguments: [String])]) throws(RedisFailure)
        -> [RESPValue]
    {
        func words(_ byText: Bool, _ call: (script: RedisScript, keys: [String], arguments: [String])) -> [String] {
            [byText ? "EVAL" : "EVALSHA", byText ? call.script.text : call.script.digest, "\(call.keys.count)"]
                + call.keys + call.arguments
        }
        var answers = try call(calls.map { words(false, $0) })
        let missing = answers.indices.filter {
            if case .error(let text) = answers[$0] { text.hasPrefix("NOSCRIPT") } else { false }
        }
        if !missing.isEmpty {
            let again = try call(missing.map { words(true, calls[$0]) })
            for (index, answer) in zip(missing, again) { answers[index] = answer }
        }
        for answer in answers { if case .error(let text) = answer { throw Self.classify(text) } }
        return answers
    }

    /// Closes the connection; the next call opens another.
    public func close() {
        tracker_curl_stream_close(stream)
        stream = nil
        buffer = []
    }

    static func classify(_ text: String) -> RedisFailure {
        let code = text.prefix(while: { $0 != " " })
        if ["NOAUTH", "WRONGPASS", "NOPERM"].contains(code) || text.contains("AUTH") && text.contains("password") {
            return .misconfigured(text)
        }
        return .replied(text)
    }

    private func open() throws(RedisFailure) {
        let (url, unixPath) = address.curlTarget
        var code: Int32 = 0
        var error = [CChar](repeating: 0, count: 256)
        let opened = tracker_curl_stream_open(
            url, unixPath, address.certificateAuthority, Int(connectTimeout * 1000), &code, &error)
        guard let opened else {
            if code == 28 { throw .unreachable("no connection within \(Self.seconds(connectTimeout))") }
            throw .unreachable(
                Self.describe(
                    code: code,
                    words: String(
                        decoding: error.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)))
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

    private func exchange(_ commands: [[String]]) throws(RedisFailure) -> [RESPValue] {
        let bytes = commands.flatMap(RESP.command)
        let deadline = MonotonicClock.now() + answerTimeout
        let sent = bytes.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) {
                tracker_curl_stream_send(stream, $0.baseAddress, $0.count, Int(answerTimeout * 1000))
            }
        }
        guard sent == 0 else { throw .unreachable(Self.describe(code: sent, words: "")) }
        var answers: [RESPValue] = []
        var chunk = [CChar](repeating: 0, count: 16384)
        while answers.count < commands.count {
            do {
                while answers.count < commands.count, let (value, next) = try RESP.parse(buffer) {
                    answers.append(value)
                    buffer.removeFirst(next)
                }
            } catch {
                throw .unreachable("its answer could not be read (\(error.reason))")
            }
            if answers.count == commands.count { break }
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { throw .unreachable("it did not answer within \(Self.seconds(answerTimeout))") }
            var received = 0
            let code = tracker_curl_stream_receive(stream, &chunk, chunk.count, &received, max(1, Int(left * 1000)))
            if code == 28 { throw .unreachable("it did not answer within \(Self.seconds(answerTimeout))") }
            guard code == 0 else { throw .unreachable(Self.describe(code: code, words: "")) }
            guard received > 0 else { throw .unreachable("it closed the connection") }
            buffer += chunk[0..<received].map { UInt8(bitPattern: $0) }
        }
        return answers
    }

    private static func seconds(_ value: Double) -> String {
        value < 1 ? "\(Int(value * 1000)) ms" : "\(Int(value)) s"
    }

    /// libcurl's result code in a person's words: refused, timed out, certificate not trusted.
    static func describe(code: Int32, words: String) -> String {
        switch code {
        case 7: "connection refused"
        case 28: "it timed out"
        case 6: "its host could not be resolved"
        case 35: "the TLS handshake failed" + (words.isEmpty ? "" : " (\(words))")
        case 60, 77, 51, 58, 83, 90, 91: "its certificate is not trusted"
        case 55, 56: "the connection was lost"
        case 2: words
        default: words.isEmpty ? String(cString: tracker_curl_strerror(code)) : words
        }
    }
}
