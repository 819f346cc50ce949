import TrackerModel
import TrackerNetwork
import TrackerSystem

/// A team lock in Redis: a `Lease` on the lock's key, renewed while held, let go when the lock is.
final class RedisLock: HeldLock {
    let lease: Lease
    let doing: String
    let team: TeamCoordination

    private init(lease: Lease, doing: String, team: TeamCoordination) {
        (self.lease, self.doing, self.team) = (lease, doing, team)
    }

    static func acquire(
        key: String, team: TeamCoordination, waitingAtMost seconds: Double, doing what: String,
        timing: Lease.Timing = .standard, now: @escaping @Sendable () -> Double,
        sleep: @escaping @Sendable (Double) async -> Void
    ) async -> Result<RedisLock, AppError> {
        let lease = Lease(key, on: team.connection, timing: timing)
        let started = now()
        let taken: Bool
        do throws(RedisFailure) {
            taken = try await lease.take(within: seconds, now: now, sleep: sleep)
        } catch {
            return .failure(team.unavailable(error, doing: what))
        }
        guard taken else {
            if Task.isCancelled { return .failure(.interrupted) }
            return .failure(.lockTimeout(what: what, waitedSeconds: Int(now() - started)))
        }
        lease.keepRenewed()
        return .success(RedisLock(lease: lease, doing: what, team: team))
    }

    /// Asks the Redis, at the last moment before the write, whether the lease is still this process's (renewing it):
    /// a lease that ran out or a Redis that restarted or went away stops the write.
    func confirmHeld() throws(AppError) {
        guard !lease.mayBeLost else { throw .teamLockLost(doing: doing) }
        let held: Bool
        do throws(RedisFailure) {
            held = try lease.confirm()
        } catch {
            throw team.unavailable(error, doing: doing)
        }
        guard held else { throw .teamLockLost(doing: doing) }
    }

    deinit { lease.release() }
}
