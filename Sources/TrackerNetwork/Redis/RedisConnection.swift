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

    /// What a user is told of the Redis at `redis` that failed so: a refusal to fix in the configuration, or a Redis
    /// that cannot be reached.
    public func problem(at redis: String) -> AppError {
        isMisconfiguration
            ? .redisRefused(redis: redis, reason: reason) : .redisUnreachable(redis: redis, reason: reason)
    }
}

/// One connection to a Redis, opened when first needed and again after a fault, used by one call at a time.
///
/// Calls are pipelined: every command of a call goes in one write, and their answers are read back in one round trip.
/// A connection that fails is closed; the next call opens a new one, so a Redis that comes back is used at once.
///
/// A Redis Cluster (a managed cluster-mode Redis or Valkey, named by any node) works as one Redis does: a command goes
/// to the node its key's slot is known to live on (every key of a base shares one slot, its hash tag), a `MOVED`
/// answer is followed and remembered, an `ASK` followed once, and a replica's `READONLY` sends the call to the
/// primary the replica names.
public final class RedisConnection: @unchecked Sendable {
    public let address: RedisAddress
    /// How long connecting (TCP and TLS) may take, and how long an answer may.
    let connectTimeout: Double
    let answerTimeout: Double
    private let lock = Locked(())
    /// The open connections: "" for the address given, "host:port" for a cluster's other nodes.
    private var nodes: [String: RedisNode] = [:]
    /// Where each slot lives, as `MOVED` answers told it.
    private var slots: [Int: String] = [:]
    /// A primary to use instead of the address given, after it answered as a read-only replica.
    private var primary: String?

    /// How many redirections one command follows before the cluster is taken as unreachable.
    static let mostRedirections = 5

    public init(address: RedisAddress, connectTimeout: Double = 0.5, answerTimeout: Double = 1) {
        self.address = address
        self.connectTimeout = connectTimeout
        self.answerTimeout = answerTimeout
    }

    deinit { for node in nodes.values { node.close() } }

    /// Until when each Redis (by address) is taken as gone quiet, after one of this process's connections to it
    /// waited its whole bound for an answer: the process's other parts (the budget, the schema, the copy) fail at once
    /// for a moment instead of each waiting its own second.
    private static let quietUntil = Locked([String: (until: Double, reason: String)]())
    /// How long a Redis that did not answer in time is left alone.
    static let quietSeconds = 2.0

    /// Sends `commands` in one write and returns their answers in order; an error answer is returned, not thrown.
    public func call(_ commands: [[String]]) throws(RedisFailure) -> [RESPValue] {
        let place = address.display
        let now = MonotonicClock.now()
        if let quiet = Self.quietUntil.withLock({ $0[place] }), now < quiet.until { throw .unreachable(quiet.reason) }
        let result = lock.withLock { _ -> Result<[RESPValue], RedisFailure> in
            do throws(RedisFailure) {
                return .success(try routed(commands))
            } catch {
                if nodes.values.contains(where: \.timedOut) {
                    Self.quietUntil.withLock { $0[place] = (MonotonicClock.now() + Self.quietSeconds, error.reason) }
                }
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Sends each command to the node its key lives on (one write a node), then follows redirections one by one.
    private func routed(_ commands: [[String]]) throws(RedisFailure) -> [RESPValue] {
        var answers = [RESPValue](repeating: .simple(""), count: commands.count)
        // The node each answer came from: a replica's READONLY is asked for its own primary.
        var answeredBy = [String](repeating: "", count: commands.count)
        var byNode: [String: [Int]] = [:]
        var order: [String] = []
        for (index, words) in commands.enumerated() {
            let node = node(for: words)
            if byNode[node] == nil { order.append(node) }
            byNode[node, default: []].append(index)
        }
        for node in order {
            let indices = byNode[node]!
            let got = try exchange(indices.map { commands[$0] }, on: node)
            for (index, answer) in zip(indices, got) { (answers[index], answeredBy[index]) = (answer, node) }
        }
        for index in answers.indices {
            var redirections = 0
            while let redirection = Redirection(answers[index]) {
                redirections += 1
                guard redirections <= Self.mostRedirections else {
                    throw .unreachable("the cluster redirected a command more than \(Self.mostRedirections) times")
                }
                switch redirection {
                case .moved(let slot, let node):
                    slots[slot] = node
                    (answers[index], answeredBy[index]) = (try exchange([commands[index]], on: node)[0], node)
                case .ask(let node):
                    (answers[index], answeredBy[index]) = (
                        try exchange([["ASKING"], commands[index]], on: node)[1], node
                    )
                case .readOnly:
                    let replica = answeredBy[index]
                    let primary = try primaryOfReplica(replica)
                    if replica.isEmpty { self.primary = primary }
                    (answers[index], answeredBy[index]) = (try exchange([commands[index]], on: primary)[0], primary)
                }
            }
        }
        return answers
    }

    /// The node a command goes to: its key's slot where a redirection told it, else the primary or the address given.
    private func node(for words: [String]) -> String {
        if let key = ClusterSlot.key(of: words), let node = slots[ClusterSlot.of(key)] { return node }
        return primary ?? ""
    }

    /// The primary a read-only replica replicates (`ROLE`), as "host:port".
    private func primaryOfReplica(_ node: String) throws(RedisFailure) -> String {
        guard case .array(let role?) = try exchange([["ROLE"]], on: node)[0], role.count >= 3,
            role[0].text == "slave", let host = role[1].text, case .integer(let port) = role[2]
        else { throw .unreachable("it is a read-only replica and did not name its primary") }
        return "\(host):\(port)"
    }

    /// One exchange with `node`, opening it when needed. A kept connection may have died since its last use (a Redis
    /// restarted, an idle timeout): one more try on a new one tells that from a Redis that is down.
    private func exchange(_ commands: [[String]], on name: String) throws(RedisFailure) -> [RESPValue] {
        let node: RedisNode
        if let kept = nodes[name] {
            node = kept
        } else {
            node = RedisNode(
                address: try nodeAddress(name), connectTimeout: connectTimeout, answerTimeout: answerTimeout)
            nodes[name] = node
        }
        let kept = node.isOpen
        for attempt in 0..<2 {
            do throws(RedisFailure) {
                if !node.isOpen { try node.open() }
                return try node.exchange(commands)
            } catch {
                node.close()
                // A Redis that did not answer in time is slow, not lost: asking it again would wait as long again.
                guard case .unreachable = error, kept, attempt == 0, !node.timedOut else { throw error }
            }
        }
        throw .unreachable("the connection was lost")
    }

    /// The address of a node a cluster named ("host:port"): the address given's credentials and TLS, another place.
    private func nodeAddress(_ name: String) throws(RedisFailure) -> RedisAddress {
        guard !name.isEmpty else { return address }
        guard let colon = name.lastIndex(of: ":"), let port = Int(name[name.index(after: colon)...]), port > 0,
            port < 65536
        else { throw .unreachable("the cluster named a node \"\(name.prefix(60))\" that is not host:port") }
        var host = String(name[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var node = address
        let tls = if case .tcp(_, _, let tls) = address.place { tls } else { false }
        node.place = .tcp(host: host, port: port, tls: tls)
        return node
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

    /// Closes every connection; the next call opens another.
    public func close() {
        lock.withLock { _ in
            for node in nodes.values { node.close() }
        }
    }

    public static func classify(_ text: String) -> RedisFailure {
        let code = text.prefix(while: { $0 != " " })
        if ["NOAUTH", "WRONGPASS", "NOPERM"].contains(code) || text.contains("AUTH") && text.contains("password") {
            return .misconfigured(text)
        }
        // A Redis running a long script, loading its dump, without its primary or between cluster moves cannot answer
        // now: as good as out of reach for the moment, not a copy or a key that is wrong (which would be made again).
        if Self.answersLater.contains(String(code)) { return .unreachable(readable(text)) }
        return .replied(readable(text))
    }

    /// The error codes of a Redis that is there but cannot answer now.
    static let answersLater: Set<String> = ["BUSY", "LOADING", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN"]

    /// A script's error as Redis words it, without where in the script it stood (`script: 5b1…, on
    /// @user_script:90.`, or Redis 6's `Error running script (call to f_…): @user_script:90: `): what a person sees is
    /// the error itself.
    static func readable(_ text: String) -> String {
        var text = Substring(text)
        if let range = text.firstRange(of: "@user_script:"), text.hasPrefix("ERR Error running script") {
            let rest = text[range.upperBound...].drop { $0.isNumber }
            text = rest.hasPrefix(": ") ? rest.dropFirst(2) : rest
        }
        if let range = text.firstRange(of: " script: ") { text = text[..<range.lowerBound] }
        return String(text)
    }
}

extension RedisConnection {
    static func seconds(_ value: Double) -> String {
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

extension RedisConnection {
    /// Takes `key` for `value` for `milliseconds` when nobody holds it (`SET NX PX`); true when `value` holds it now.
    /// The GET beside the SET tells a key this process already holds: a SET whose answer was lost and was sent again
    /// finds its own value there, and holds the key rather than waiting for itself.
    public func take(_ key: String, for value: String, milliseconds: Int) throws(RedisFailure) -> Bool {
        let answers = try call([["SET", key, value, "NX", "PX", "\(milliseconds)"], ["GET", key]])
        if case .error(let text) = answers[0] { throw RedisConnection.classify(text) }
        return answers[0].text == "OK" || answers[1].text == value
    }
}

/// A Lua script and the digest Redis knows it by.
public struct RedisScript: Sendable {
    public let text: String
    public let digest: String

    public init(_ text: String) {
        self.text = text
        digest = Digest.sha1Hex(text)
    }
}
