import Dispatch
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// A lease in the team's Redis, the one kind every holder uses: the write lock, the copy's poller, the schema's read
/// and serve's refresh of a person's grant. A key taken with `SET NX PX` for a random holder, renewed while held,
/// ended by a compare-and-delete, so only its holder extends or ends it. As client-go's leader election, a holder
/// that keeps it renewed hears once when it stops leading.
public final class Lease: Sendable {
    /// How long a lease lasts without renewal, and how often it is renewed.
    public struct Timing: Sendable, Equatable {
        public var leaseMilliseconds: Int
        public var renewEvery: Double

        public init(leaseMilliseconds: Int, renewEvery: Double) {
            (self.leaseMilliseconds, self.renewEvery) = (leaseMilliseconds, renewEvery)
        }

        /// A crashed holder blocks the others for 15 s at most, and a holder misses two renewals before its lease
        /// runs out.
        public static let standard = Timing(leaseMilliseconds: 15_000, renewEvery: 5)

        /// Whether a lease last confirmed at `confirmedAt` may have run out by `now`.
        func outlived(confirmedAt: Double, now: Double) -> Bool {
            now - confirmedAt >= Double(leaseMilliseconds) / 1000
        }
    }

    private struct State {
        /// Counts the takes: a renewal loop of an earlier hold ends when the lease is taken again.
        var generation = 0
        var held = false
        var lost = false
        var confirmedAt = 0.0
    }

    public let key: String
    public let holder: String
    public let timing: Timing
    let connection: RedisConnection
    private let state = Locked(State())
    /// Signalled when the lease is let go, so a renewal loop ends at once rather than at its next turn.
    private let letGo = DispatchSemaphore(value: 0)

    /// The lease on `key` as `holder` would hold it (random unless named, as the copy's poller names itself in its
    /// scripts); nothing is taken yet.
    public init(
        _ key: String, holder: String = Digest.randomHex(bytes: 16), on connection: RedisConnection,
        timing: Timing = .standard
    ) {
        (self.key, self.holder, self.connection, self.timing) = (key, holder, connection, timing)
    }

    /// Takes the lease when nobody holds it (or this holder does): true when it is this holder's now.
    public func take() throws(RedisFailure) -> Bool {
        let asked = MonotonicClock.now()
        guard try connection.take(key, for: holder, milliseconds: timing.leaseMilliseconds) else { return false }
        state.withLock { state in
            state = State(generation: state.generation + 1, held: true, lost: false, confirmedAt: asked)
        }
        return true
    }

    /// Takes the lease, trying again every tenth of a second for `seconds`: false when another still holds it then
    /// (or the task was cancelled).
    public func take(
        within seconds: Double, now: @Sendable () -> Double = MonotonicClock.now,
        sleep: @Sendable (Double) async -> Void = MonotonicClock.sleep
    ) async throws(RedisFailure) -> Bool {
        let started = now()
        while true {
            if try take() { return true }
            let waited = now() - started
            guard waited < seconds, !Task.isCancelled else { return false }
            await sleep(min(0.1, max(0.01, seconds - waited)))
        }
    }

    /// Renews the lease on a thread of its own (a round may wait on Airtable longer than the lease) until it is let
    /// go; `stoppedLeading` is told once when a renewal finds it another's or gone, or when renewals fail for longer
    /// than the lease (the key may have run out meanwhile).
    public func keepRenewed(stoppedLeading: @escaping @Sendable () -> Void = {}) {
        let (state, letGo, connection, key, holder, timing) = (state, letGo, connection, key, holder, timing)
        let generation = state.withLock { $0.generation }
        DetachedThread.start {
            while true {
                let woken = letGo.wait(timeout: .now() + timing.renewEvery) == .success
                guard state.withLock({ $0.generation == generation && $0.held && !$0.lost }) else { return }
                // Woken while still held: a signal left by an earlier hold that was never renewed.
                if woken { continue }
                let asked = MonotonicClock.now()
                let renewed = try? connection.evaluate([
                    (RedisScripts.renew, [key], [holder, "\(timing.leaseMilliseconds)"])
                ])
                let stopped = state.withLock { state -> Bool in
                    guard state.generation == generation else { return false }
                    switch renewed?.first {
                    case .integer(1)?: state.confirmedAt = asked
                    case .integer(0)?: state.lost = true
                    default: state.lost = timing.outlived(confirmedAt: state.confirmedAt, now: MonotonicClock.now())
                    }
                    return state.lost
                }
                if stopped { return stoppedLeading() }
            }
        }
    }

    /// Whether the lease is known lost, or may have run out since it was last confirmed.
    public var mayBeLost: Bool {
        state.withLock {
            !$0.held || $0.lost || timing.outlived(confirmedAt: $0.confirmedAt, now: MonotonicClock.now())
        }
    }

    /// Asks Redis now whether the lease is still this holder's, renewing it: false when it is another's or gone.
    public func confirm() throws(RedisFailure) -> Bool {
        let asked = MonotonicClock.now()
        let answer = try connection.evaluate([(RedisScripts.renew, [key], [holder, "\(timing.leaseMilliseconds)"])])
        let held = answer.first == .integer(1)
        state.withLock { state in
            if held { state.confirmedAt = asked } else { state.lost = true }
        }
        return held
    }

    /// Lets the lease go, if it is still this holder's; its renewal stops.
    public func release() {
        stopRenewing()
        _ = try? connection.evaluate([(RedisScripts.release, [key], [holder])])
    }

    /// Lets the lease go as the process ends on a signal: on a connection of its own (the usual one may be in the
    /// middle of an answer), half a second at most, so a Redis gone quiet never holds the end up.
    public func releaseAtExit() {
        stopRenewing()
        let own = RedisConnection(address: connection.address, connectTimeout: 0.5, answerTimeout: 0.5)
        _ = try? own.evaluate([(RedisScripts.release, [key], [holder])])
    }

    /// Stops renewing without letting go (another holds it now, or the holder is done with it).
    public func stopRenewing() {
        let wasHeld = state.withLock { state -> Bool in
            defer { state.held = false }
            return state.held
        }
        if wasHeld { letGo.signal() }
    }
}
