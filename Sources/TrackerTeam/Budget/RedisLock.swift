#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerSystem
import TrackerModel
import TrackerNetwork

/// A team lock in Redis: `SET key value NX PX lease`, renewed while held, released by a compare-and-delete, so only
/// its holder can extend or end it. The value is random: another process's lock is never taken for this one's.
final class RedisLock: HeldLock {
    let key: String
    let value: String
    let doing: String
    let team: TeamCoordination
    /// Whether the lock was let go (renewal stops), whether a renewal found it gone, and when the lease was last
    /// known to be this process's (monotonic clock).
    private let state = Locked((released: false, lost: false, confirmedAt: MonotonicClock.now()))

    let timing: LeaseTiming

    /// How long a lease lasts without renewal, and how often it is renewed.
    struct LeaseTiming: Sendable {
        var leaseMilliseconds: Int
        var renewEvery: Double

        /// A crashed holder blocks the others for 15 s at most, and a holder misses two renewals before its lease
        /// runs out.
        static let standard = LeaseTiming(leaseMilliseconds: 15_000, renewEvery: 5)

        /// Whether a lease last confirmed at `confirmedAt` may have run out by `now`.
        func outlived(confirmedAt: Double, now: Double) -> Bool {
            now - confirmedAt >= Double(leaseMilliseconds) / 1000
        }
    }

    private init(key: String, value: String, doing: String, team: TeamCoordination, timing: LeaseTiming) {
        self.key = key
        self.value = value
        self.doing = doing
        self.team = team
        self.timing = timing
    }

    static func acquire(
        key: String, team: TeamCoordination, waitingAtMost seconds: Double, doing what: String,
        timing: LeaseTiming = .standard, now: @Sendable () -> Double, sleep: @Sendable (Double) async -> Void
    ) async -> Result<RedisLock, AppError> {
        let value = Digest.randomHex(bytes: 16)
        let started = now()
        while true {
            let taken: Bool
            do throws(RedisFailure) {
                taken = try team.connection.take(key, for: value, milliseconds: timing.leaseMilliseconds)
            } catch {
                return .failure(team.unavailable(error, doing: what))
            }
            if taken {
                let lock = RedisLock(key: key, value: value, doing: what, team: team, timing: timing)
                lock.keepRenewed()
                return .success(lock)
            }
            let waited = now() - started
            guard waited < seconds else { return .failure(.lockTimeout(what: what, waitedSeconds: Int(waited))) }
            await sleep(min(0.1, max(0.01, seconds - waited)))
            if Task.isCancelled { return .failure(.interrupted) }
        }
    }

    /// Renews the lease in the background until the lock is released; a renewal that finds it gone marks it lost,
    /// and so do renewals that fail for longer than the lease (the key may have expired meanwhile).
    private func keepRenewed() {
        let state = state
        let (team, key, value, timing) = (team, key, value, timing)
        DetachedThread.start {
            var next = MonotonicClock.now() + timing.renewEvery
            while !state.withLock({ $0.released || $0.lost }) {
                usleep(50_000)
                guard MonotonicClock.now() >= next else { continue }
                next = MonotonicClock.now() + timing.renewEvery
                let asked = MonotonicClock.now()
                let renewed = try? team.connection.evaluate([
                    (RedisScripts.renew, [key], [value, "\(timing.leaseMilliseconds)"])
                ])
                state.withLock { state in
                    switch renewed?.first {
                    case .integer(1)?: state.confirmedAt = asked
                    case .integer(0)?: state.lost = true
                    default: state.lost = timing.outlived(confirmedAt: state.confirmedAt, now: MonotonicClock.now())
                    }
                }
            }
        }
    }

    /// Asks the Redis, at the last moment before the write, whether the lease is still this process's (renewing it):
    /// a lease that ran out or a Redis that restarted or went away stops the write.
    func confirmHeld() throws(AppError) {
        if state.withLock({ $0.lost || timing.outlived(confirmedAt: $0.confirmedAt, now: MonotonicClock.now()) }) {
            state.withLock { $0.lost = true }
            throw .teamLockLost(doing: doing)
        }
        let asked = MonotonicClock.now()
        let answer: [RESPValue]
        do throws(RedisFailure) {
            answer = try team.connection.evaluate([(RedisScripts.renew, [key], [value, "\(timing.leaseMilliseconds)"])])
        } catch {
            throw team.unavailable(error, doing: doing)
        }
        guard answer.first == .integer(1) else {
            state.withLock { $0.lost = true }
            throw .teamLockLost(doing: doing)
        }
        state.withLock { $0.confirmedAt = asked }
    }

    deinit {
        state.withLock { $0.released = true }
        _ = try? team.connection.evaluate([(RedisScripts.release, [key], [value])])
    }
}
