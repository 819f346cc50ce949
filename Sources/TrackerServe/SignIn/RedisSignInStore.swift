#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerNetwork
import TrackerSystem
import TrackerTeam

/// The sign-ins in the team's Redis: every serve behind the proxy reads the same grants (a serve restarted or added
/// signs nobody out, a revocation holds on all at once), and a person's Airtable grant is refreshed under a lock they
/// all respect. Keys are `tracker:{<base>}:serve:…`, in one hash slot for a cluster.
package final class RedisSignInStore: SignInStore {
    private let connection: RedisConnection
    private let prefix: String
    private let redis: String

    /// The store for the base `baseID` on `connection` (`redis`: the address as messages name it).
    package init(connection: RedisConnection, baseID: String, redis: String) {
        self.connection = connection
        self.prefix = "tracker:{\(baseID)}:serve:"
        self.redis = redis
    }

    private func failure(_ error: RedisFailure) -> AppError { error.problem(at: redis) }

    package func get(_ key: String) throws(AppError) -> String? {
        do { return try connection.command(["GET", prefix + key]).text } catch { throw failure(error) }
    }

    package func put(_ key: String, _ value: String, liveFor seconds: Double) throws(AppError) {
        let milliseconds = max(1, Int(seconds * 1000))
        do { _ = try connection.command(["SET", prefix + key, value, "PX", "\(milliseconds)"]) } catch {
            throw failure(error)
        }
    }

    package func take(_ key: String) throws(AppError) -> String? {
        // GETDEL (Redis 6.2): of several serves taking one code or state, one gets it.
        do { return try connection.command(["GETDEL", prefix + key]).text } catch { throw failure(error) }
    }

    package func delete(_ key: String) throws(AppError) {
        do { _ = try connection.command(["DEL", prefix + key]) } catch { throw failure(error) }
    }

    package func entries(prefix wanted: String) throws(AppError) -> [(key: String, value: String)] {
        var keys: [String] = []
        var cursor = "0"
        do {
            repeat {
                let answer = try connection.command(["SCAN", cursor, "MATCH", prefix + wanted + "*", "COUNT", "500"])
                guard case .array(let parts?) = answer, parts.count == 2, let next = parts[0].text,
                    case .array(let found?) = parts[1]
                else { break }
                keys += found.compactMap(\.text)
                cursor = next
            } while cursor != "0"
            guard !keys.isEmpty else { return [] }
            guard case .array(let values?) = try connection.command(["MGET"] + keys) else { return [] }
            return zip(keys, values).compactMap { key, value in
                value.text.map { (String(key.dropFirst(prefix.count)), $0) }
            }.sorted { $0.key < $1.key }
        } catch { throw failure(error) }
    }

    package func exclusively<T: Sendable>(_ name: String, within seconds: Double, _ body: @Sendable () async -> T)
        async -> T?
    {
        // Held 30 s at most, never renewed: a serve that dies or hangs holding it frees it then (a refresh takes a
        // round trip to Airtable).
        let lock = Lease(
            prefix + "lock:" + name, on: connection, timing: .init(leaseMilliseconds: 30_000, renewEvery: 0))
        guard (try? await lock.take(within: seconds)) == true else { return nil }
        let result = await body()
        lock.release()
        return result
    }
}
