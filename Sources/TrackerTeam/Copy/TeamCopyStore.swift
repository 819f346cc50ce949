import TrackerAPI
import TrackerModel
import TrackerNetwork

/// The team's copy as it lies in Redis, under keys with the base as hash tag (one slot in a cluster) and the projects
/// table and layout in their names: a header (`head`: generation, version, each table's count and mark, the webhook's
/// cursor, when it was refreshed), a hash of records a table, the deletions' stamps (`gone`), the poller's lease, and
/// the stream of applied refreshes (`news`) readers follow.
public struct TeamCopyStore: Sendable {
    /// The keys of one copy.
    public struct Keys: Sendable, Equatable {
        public let prefix: String
        /// Where every copy of the base kept at this endpoint is registered with the names it is read by.
        public let registry: String

        /// How records and scripts are laid out in Redis: a version of tracker that stores them otherwise keeps a copy
        /// of its own, instead of each distrusting the other's in turn.
        public static let format = 2

        /// `tracker:{base}:copy:<endpoint>:<table>:<layout>:f<format>`: the base as hash tag, the rest hashed or plain
        /// ids.
        public init(owner: BudgetOwner, table: String, layout: String) {
            let base = TeamCoordination.Keys.base(owner.baseID)
            let endpoint = TeamCoordination.Keys.endpoint(owner)
            let tableID = table.hasPrefix("tbl") ? table : String(StableHash.of(table), radix: 16)
            prefix = "tracker:{\(base)}:copy:\(endpoint):\(tableID):\(Self.hash(layout)):f\(Self.format)"
            registry = "tracker:{\(base)}:copies:\(endpoint)"
        }

        /// The keys under `prefix` (a copy another process registered).
        init(prefix: String, registry: String) { (self.prefix, self.registry) = (prefix, registry) }

        /// The short name a layout's description goes by in keys and in the header.
        public static func hash(_ layout: String) -> String { String(Digest.sha1Hex(layout).prefix(16)) }

        public var lease: String { prefix + ":lease" }
        /// Why the poller's first read failed, for the readers waiting for it (a minute).
        public var failed: String { prefix + ":failed" }
        public var head: String { prefix + ":head" }
        /// The first page of the poller's first whole read, for the first screens of readers waiting for it.
        public var first: String { prefix + ":first" }
        public var gone: String { prefix + ":gone" }
        public var news: String { prefix + ":news" }
        /// How many times the readers looked (a key, a call): the poller slows while it does not change.
        public var looks: String { prefix + ":looks" }
        /// How long the poller waits between rounds now, for readers to tell whether it slowed.
        public var pace: String { prefix + ":pace" }
        /// A stream a reader adds to when it looks while the poller has slowed down: the poller, blocked reading the
        /// news, wakes at once instead of at its next second.
        public var wake: String { prefix + ":wake" }
        /// How many pings `tracker serve` took for the base (every copy's poller rounds at once on a new one).
        public var pings: String { besideRegistry("pings") }
        /// Set while a `serve` keeps a webhook that pings it for the base: pollers then round on pings, and once an
        /// hour for one that was lost.
        public var doorbell: String { besideRegistry("doorbell") }

        /// A base-wide key beside the registry (`tracker:{base}:copies:<endpoint>`): `tracker:{base}:<name>:<endpoint>`.
        private func besideRegistry(_ name: String) -> String {
            let parts = registry.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            return parts.count == 4 ? "\(parts[0]):\(parts[1]):\(name):\(parts[3])" : registry + ":" + name
        }
        public func records(_ table: BaseCopy.Table) -> String { prefix + ":" + table.word }
        func stage(_ table: BaseCopy.Table, generation: String) -> String {
            prefix + ":stage:" + generation + ":" + table.word
        }
    }

    public let keys: Keys
    /// The connection for calls, whose answers come within its bound (a second, as the budget's): a Redis gone slow
    /// is said at once, not waited for. The stream is followed on another, as its reads block.
    let connection: RedisConnection
    /// The poller's scripts (a refresh, a whole copy's batches) on a connection of their own that waits longer: a
    /// script over 50,000 records takes Redis a while, and a reader's bound must not cut it.
    let scripts: RedisConnection
    /// Runs between a scan's pages, once each has been read: the tests' way to land a write mid-scan, as another
    /// process's write may at any moment.
    var betweenPages: (@Sendable () -> Void)? = nil

    public init(keys: Keys, connection: RedisConnection) {
        self.keys = keys
        self.connection = connection
        scripts = RedisConnection(address: connection.address, answerTimeout: 5)
    }

    // MARK: - The header and the lease

    /// The answers to `commands` in one round trip; the first error answer is thrown (a Redis busy or loading answers
    /// every command so, which is not an answer of an unexpected shape).
    private func checked(_ commands: [[String]]) throws(RedisFailure) -> [RESPValue] {
        let answers = try connection.call(commands)
        for answer in answers { if case .error(let text) = answer { throw RedisConnection.classify(text) } }
        return answers
    }

    /// Marks generation `generation` of the copy as one no reader serves until its poller makes it again (a value in
    /// it is junk, or Redis refused to read it); best effort: a Redis that refuses this too is said by the next read.
    func markDistrusted(_ generation: String) {
        _ = try? connection.call([["HSET", keys.head, "distrusted", generation]])
    }

    /// The header's fields, who holds the lease (nil: nobody), and Redis's clock, in one round trip. Two fields come
    /// from keys of their own: `failed` (why the poller's last round failed, for a minute) and `pace` (how long it
    /// waits between rounds now).
    func head() throws(RedisFailure) -> (fields: [String: String], poller: String?, now: Double) {
        let answers = try checked([
            ["HGETALL", keys.head], ["GET", keys.lease], ["TIME"], ["GET", keys.failed], ["GET", keys.pace],
        ])
        guard case .array(let items?) = answers[0], let now = answers[2].redisTime else {
            throw .replied("the team's copy's header answered in an unexpected shape")
        }
        var fields: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let key = items[index].text, let value = items[index + 1].text { fields[key] = value }
            index += 2
        }
        fields["failed"] = answers[3].text
        fields["pace"] = answers[4].text
        return (fields, answers[1].text, now)
    }

    /// A ping from Airtable for the base: counted, and every copy's poller woken (their wake streams), so each rounds
    /// now; `liveFor` seconds of doorbell said with it. One round trip after the registry's.
    public static func ring(owner: BudgetOwner, on connection: RedisConnection, liveFor seconds: Int)
        throws(RedisFailure)
    {
        let keys = Keys(owner: owner, table: "", layout: "")
        guard case .array(let prefixes?) = try connection.command(["HKEYS", keys.registry]) else { return }
        var commands: [[String]] = [
            ["INCR", keys.pings], ["EXPIRE", keys.pings, "86400"], ["SET", keys.doorbell, "1", "EX", "\(seconds)"],
        ]
        for prefix in prefixes.compactMap(\.text) {
            commands.append(["XADD", prefix + ":wake", "MAXLEN", "~", "10", "*", "ping", "1"])
            commands.append(["PEXPIRE", prefix + ":wake", "600000"])
        }
        _ = try connection.call(commands)
    }

    /// Says a doorbell is kept for the base for `seconds` (or none, with 0): pollers round on pings.
    public static func doorbell(owner: BudgetOwner, on connection: RedisConnection, liveFor seconds: Int)
        throws(RedisFailure)
    {
        let keys = Keys(owner: owner, table: "", layout: "")
        _ = try connection.command(
            seconds > 0 ? ["SET", keys.doorbell, "1", "EX", "\(seconds)"] : ["DEL", keys.doorbell])
    }

    /// What a reader checks before each turn, in one round trip: the header's generation and version, what is wrong
    /// with each table's count (its hash against the header's count), and how old the copy is by the poller's pace.
    func sizes(every: Double) throws(RedisFailure) -> (
        generation: String?, version: Int?, short: String?, old: String?, failed: String?
    ) {
        let tables: [BaseCopy.Table] = [.projects, .tasks, .clients]
        let answers = try checked(
            [["HMGET", keys.head, "generation", "version", "applied"] + tables.map { "count:" + $0.word }]
                + tables.map { ["HLEN", keys.records($0)] }
                + [["GET", keys.lease], ["TIME"], ["GET", keys.pace], ["GET", keys.failed]])
        guard case .array(let parts?) = answers[0], parts.count == 3 + tables.count else {
            throw .replied("the team's copy's header answered in an unexpected shape")
        }
        var short: String?
        for (index, table) in tables.enumerated() {
            guard let counted = parts[3 + index].text.flatMap({ Int($0) }) else { continue }
            let held = if case .integer(let count) = answers[1 + index] { count } else { -1 }
            if held != counted && short == nil {
                short = "it is short of records (\(table.word): \(held) of \(counted); a key was evicted or deleted)"
            }
        }
        let rest = answers.suffix(4).map { $0 }
        let old = rest[1].redisTime.flatMap { now in
            TeamCopy.tooOld(
                applied: parts[2].text.flatMap(Double.init), now: now, pace: rest[2].text.flatMap(Double.init),
                every: every, poller: rest[0].text, failed: rest[3].text)
        }
        let failed = rest[0].text == nil ? nil : rest[3].text
        return (parts[0].text, parts[1].text.flatMap { Int($0) }, short, old, failed)
    }

    /// Tells the readers that the poller's round failed, and why, for a minute or until a round is done.
    func tellFailure(_ why: String) {
        _ = try? connection.call([["SET", keys.failed, String(why.prefix(300)), "PX", "60000"]])
    }

    /// Tells the readers the poller's rounds are done again: the failure it told them goes.
    func clearFailure() {
        _ = try? connection.call([["DEL", keys.failed]])
    }

    // MARK: - Records

    /// The stored values of these records (nil for one not there).
    func values(_ table: BaseCopy.Table, ids: [String]) throws(RedisFailure) -> [String?] {
        var values: [String?] = []
        for chunk in ids.chunked(into: 500) {
            guard case .array(let items?) = try connection.command(["HMGET", keys.records(table)] + chunk) else {
                throw .replied("HMGET answered in an unexpected shape")
            }
            values += items.map(\.text)
        }
        return values
    }

    /// A stored value's record and its place in the table's order: nil when it is not one (junk, another kind, no
    /// stamp or order).
    static func record<Record: StoredRecord>(_ value: String, as: Record.Type) -> (order: Int, record: Record)? {
        // The two spaces are found as bytes (a whole copy is loaded so: no grapheme rules over its JSON).
        let bytes = value.utf8
        guard let first = bytes.firstIndex(of: UInt8(ascii: " ")),
            let second = bytes[bytes.index(after: first)...].firstIndex(of: UInt8(ascii: " ")),
            Double(value[..<first]) != nil, let order = Int(value[value.index(after: first)..<second]),
            let record = record(json: value[value.index(after: second)...], as: Record.self)
        else { return nil }
        return (order, record)
    }

    /// A record from its stored JSON alone (no stamp or order); nil when it is not one.
    static func record<Record: StoredRecord>(json: Substring, as: Record.Type) -> Record? {
        (try? JSONParser.parse(json)).flatMap { Record(stored: $0) }
    }

    /// A record's JSON as stored (the scripts put the stamp before it).
    static func value<Record: StoredRecord>(_ record: Record) -> String { record.stored.serialized() }

    // MARK: - News

    /// The refreshes applied after `id` (`0` for all Redis holds), oldest first; waits up to `blocking` seconds for one.
    /// Given `wakeAfter`, a reader's wake added after that id ends the wait too (an entry whose `isWake` is true).
    func news(after id: String, blocking: Double?, on connection: RedisConnection? = nil, wakeAfter: String? = nil)
        throws(RedisFailure) -> [TeamNews]
    {
        var words = ["XREAD", "COUNT", "200"]
        if let blocking { words += ["BLOCK", "\(Int(blocking * 1000))"] }
        let streams = wakeAfter.map { ["STREAMS", keys.news, keys.wake, id, $0] } ?? ["STREAMS", keys.news, id]
        let answer = try (connection ?? self.connection).command(words + streams)
        guard case .array(let streams?) = answer else { return [] }
        var found: [TeamNews] = []
        for stream in streams {
            guard case .array(let parts?) = stream, parts.count == 2, case .array(let entries?) = parts[1] else {
                continue
            }
            let isWake = parts[0].text == keys.wake
            for entry in entries {
                guard case .array(let pair?) = entry, pair.count == 2, let id = pair[0].text,
                    case .array(let items?) = pair[1]
                else { continue }
                var fields: [String: String] = [:]
                var index = 0
                while index + 1 < items.count {
                    if let key = items[index].text { fields[key] = items[index + 1].text ?? "" }
                    index += 2
                }
                if isWake { fields = ["wake": "1"] }
                found.append(TeamNews(id: id, fields: fields))
            }
        }
        return found
    }
}

/// One applied refresh, as the stream tells it.
struct TeamNews: Sendable {
    var id: String
    var fields: [String: String]

    var version: Int? { fields["v"].flatMap { Int($0) } }
    var generation: String { fields["g"] ?? "" }
    /// A reader's wake for the poller, not a refresh.
    var isWake: Bool { fields["wake"] == "1" }
    /// A whole read replaced the copy: readers load it again.
    var isWhole: Bool { fields["whole"] == "1" || fields["reload"] == "1" }

    func changed(_ table: BaseCopy.Table) -> [String] { ids(fields["c:" + table.word]) }
    func deleted(_ table: BaseCopy.Table) -> [String] { ids(fields["d:" + table.word]) }

    private func ids(_ text: String?) -> [String] { (text ?? "").split(separator: " ").map(String.init) }
}
