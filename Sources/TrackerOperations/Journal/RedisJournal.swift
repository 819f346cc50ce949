#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerNetwork
import TrackerSystem
import TrackerTeam

/// The journal in the team's Redis, so every machine sees every entry: a hash of entries by id
/// (`tracker:{<base>}:journal:entries`) and their order by time (`…:journal:order`), in one hash slot. Keeping an
/// entry and dropping what is past 30 days or beyond the newest 10,000 is one script, so two machines keeping
/// entries at once never leave one half kept.
package struct RedisJournal: JournalStore {
    let connection: RedisConnection
    let entriesKey: String
    let orderKey: String
    let redis: String
    let now: @Sendable () -> Double
    let bound: Int
    /// Where entries go while the Redis cannot be reached (not when it refuses: a full or read-only Redis stops the
    /// write): this machine's journal, said once a process.
    let fallback: FileJournal?
    let warn: @Sendable (String) -> Void
    private let saidFallback = Locked(false)

    package init(
        connection: RedisConnection, baseID: String, redis: String, now: @escaping @Sendable () -> Double,
        bound: Int = JournalBounds.entries, fallback: FileJournal? = nil,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        let prefix = "tracker:{\(TeamCoordination.Keys.base(baseID))}:journal:"
        (self.connection, self.entriesKey, self.orderKey) = (connection, prefix + "entries", prefix + "order")
        (self.redis, self.now, self.bound, self.fallback, self.warn) = (redis, now, bound, fallback, warn)
    }

    /// The fallback for a Redis that cannot be reached, said the first time a write is journaled there (a read of the
    /// journal, the board's count of approvals, says nothing: the Redis's own warning says it is down).
    private func fallingBack(_ failure: RedisFailure, writing: Bool = false) -> FileJournal? {
        guard case .unreachable = failure, let fallback else { return nil }
        guard writing else { return fallback }
        let first = saidFallback.withLock { said in
            defer { said = true }
            return !said
        }
        if first {
            warn(
                "the team's Redis cannot be reached: this write is journaled on this machine only (\(fallback.keeper))")
        }
        return fallback
    }

    package var keeper: String { "the team's Redis (\(redis))" }

    /// KEYS: the entries, the order. ARGV: the id, the time, the entry, the oldest time kept, the bound, and how long
    /// the keys live after the last entry (30 days and a day: a journal nobody writes to leaves nothing behind).
    static let keep = RedisScript(
        #"""
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
        redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
        local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
        local count = redis.call('ZCARD', KEYS[2]) - #old
        local over = count - tonumber(ARGV[5])
        if over > 0 then
          local oldest = redis.call('ZRANGE', KEYS[2], #old, #old + over - 1)
          for _, id in ipairs(oldest) do old[#old + 1] = id end
        end
        for i = 1, #old, 500 do
          local part = {unpack(old, i, math.min(i + 499, #old))}
          redis.call('HDEL', KEYS[1], unpack(part))
          redis.call('ZREM', KEYS[2], unpack(part))
        end
        redis.call('PEXPIRE', KEYS[1], ARGV[6])
        redis.call('PEXPIRE', KEYS[2], ARGV[6])
        return #old
        """#)

    package func keep(_ entry: JournalEntry) throws(AppError) {
        do throws(RedisFailure) {
            _ = try connection.evaluate([
                (
                    Self.keep, [entriesKey, orderKey],
                    [
                        entry.id, String(entry.at), entry.json.serialized(), String(now() - JournalBounds.seconds),
                        String(bound), String(Int((JournalBounds.seconds + 86_400) * 1000)),
                    ]
                )
            ])
        } catch {
            if let fallback = fallingBack(error, writing: true) { return try fallback.keep(entry) }
            throw .journalUnavailable("\(keeper): \(error.problem(at: redis).message)")
        }
    }

    package func entries(limit: Int, since: Double?) throws(AppError) -> [JournalEntry] {
        let oldest = max(since ?? 0, now() - JournalBounds.seconds)
        do throws(RedisFailure) {
            let ids = try connection.command([
                "ZREVRANGEBYSCORE", orderKey, "+inf", String(oldest), "LIMIT", "0", String(max(0, min(limit, bound))),
            ])
            guard case .array(let found?) = ids, !found.isEmpty else { return [] }
            let names = found.compactMap(\.text)
            guard case .array(let values?) = try connection.command(["HMGET", entriesKey] + names) else { return [] }
            return values.compactMap { value in
                value.text.flatMap { try? JSONParser.parse(Data($0.utf8)) }.flatMap(JournalEntry.init(json:))
            }
        } catch {
            if let fallback = fallingBack(error) { return try fallback.entries(limit: limit, since: since) }
            throw .journalUnavailable("\(keeper): \(error.problem(at: redis).message)")
        }
    }

    package func entry(_ id: String) throws(AppError) -> JournalEntry? {
        do throws(RedisFailure) {
            let found = try connection.command(["HGET", entriesKey, id]).text
            let entry = found.flatMap { try? JSONParser.parse(Data($0.utf8)) }.flatMap(JournalEntry.init(json:))
            guard let entry, entry.at >= now() - JournalBounds.seconds else { return nil }
            return entry
        } catch {
            if let fallback = fallingBack(error) { return try fallback.entry(id) }
            throw .journalUnavailable("\(keeper): \(error.problem(at: redis).message)")
        }
    }
}
