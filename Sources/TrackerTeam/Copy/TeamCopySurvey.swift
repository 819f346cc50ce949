import TrackerAPI
import TrackerModel
import TrackerNetwork

/// What `doctor` says of each team's copy of a base: how old, how many records a table, who polls, its size.
public struct TeamCopySurvey: Sendable {
    /// Seconds since its last refresh was applied, by Redis's clock; nil when it has no header (not built, flushed).
    public var age: Double?
    /// Records a table, as the header counts them, and as Redis holds them.
    public var counts: [(table: String, counted: Int, held: Int)]
    /// Who holds the poller's lease (host and process id as it wrote them), or nil.
    public var poller: String?
    /// Bytes the copy's keys take in Redis (`MEMORY USAGE`); nil where the Redis does not say.
    public var bytes: Int?
    /// Whether it keeps every field (an assistant's) or some (a board's).
    public var keepsEveryField: Bool?
    /// The refreshes and writes applied to it since it was made whole (its version), and how long the poller waits
    /// between rounds now (slower while nobody looks).
    public var version: Int?
    public var pace: Double?
    /// Why the poller's last round failed (kept a minute), when it did.
    public var failed: String?
    /// Whether this version of tracker stores copies this way (an older one keeps a copy of its own).
    public var isCurrentFormat = true

    /// Every copy registered for `owner`'s base, surveyed.
    public static func all(_ owner: BudgetOwner, on connection: RedisConnection) throws(RedisFailure)
        -> [TeamCopySurvey]
    {
        let registry = TeamCopyStore.Keys(owner: owner, table: "", layout: "").registry
        guard case .array(let items?) = try connection.command(["HGETALL", registry]) else { return [] }
        var surveys: [TeamCopySurvey] = []
        var index = 0
        while index + 1 < items.count {
            if let prefix = items[index].text {
                let keys = TeamCopyStore.Keys(prefix: prefix, registry: registry)
                surveys.append(try survey(TeamCopyStore(keys: keys, connection: connection)))
            }
            index += 2
        }
        return surveys
    }

    static func survey(_ store: TeamCopyStore) throws(RedisFailure) -> TeamCopySurvey {
        let (fields, lease, now) = try store.head()
        let poller = lease == nil ? nil : fields["poller"] ?? "a process"
        var counts: [(String, Int, Int)] = []
        var keys = [store.keys.head, store.keys.gone, store.keys.news]
        for table in [BaseCopy.Table.projects, .tasks, .clients] {
            guard let counted = fields["count:" + table.word].flatMap({ Int($0) }) else { continue }
            let held =
                if case .integer(let count) = try store.connection.command(["HLEN", store.keys.records(table)]) {
                    count
                } else { 0 }
            counts.append((table.word, counted, held))
            keys.append(store.keys.records(table))
        }
        var bytes: Int? = 0
        for key in keys {
            switch try? store.connection.command(["MEMORY", "USAGE", key]) {
            case .integer(let size)?: bytes = bytes.map { $0 + size }
            case .bulk(nil)?: continue
            default: bytes = nil
            }
        }
        let age = fields["applied"].flatMap(Double.init).map { max(0, now - $0) }
        let layout = fields["kept"]
        var survey = TeamCopySurvey(
            age: age, counts: counts, poller: poller, bytes: bytes, keepsEveryField: layout.map { $0 == "all" })
        survey.version = fields["version"].flatMap { Int($0) }
        survey.pace = fields["pace"].flatMap(Double.init)
        survey.failed = fields["failed"]
        survey.isCurrentFormat = store.keys.prefix.hasSuffix(":f\(TeamCopyStore.Keys.format)")
        return survey
    }
}
