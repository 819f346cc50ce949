import TrackerSystem
import TrackerModel

/// The server's time as its answers' `Date` headers tell it, carried forward by this machine's monotonic clock: what
/// "changed since" is measured by, so a machine whose clock is off misses nothing.
public final class ServerClock: Sendable {
    private let heard = Locked<(server: Double, local: Double)?>(nil)
    private let localNow: @Sendable () -> Double

    public init(localNow: @escaping @Sendable () -> Double = MonotonicClock.now) {
        self.localNow = localNow
    }

    /// Notes an answer's `Date` header (seconds since 1970, whole seconds as HTTP dates are).
    public func heard(serverSeconds: Double) {
        let local = localNow()
        heard.withLock { $0 = (serverSeconds, local) }
    }

    /// The server's time now, seconds since 1970; nil before any answer carried a `Date`.
    ///
    /// A `Date` is cut to the whole second it was written in, and reaches tracker one way of a round trip late: the
    /// estimate can be up to a second and that trip early or late, which the callers' margin covers.
    public func now() -> Double? { at(local: localNow()) }

    /// This machine's monotonic clock now, the one `at(local:)` takes.
    public func localTime() -> Double { localNow() }

    /// The server's time at an instant of this machine's monotonic clock (before or after the last answer).
    public func at(local: Double) -> Double? {
        guard let last = heard.withLock({ $0 }) else { return nil }
        return last.server + (local - last.local)
    }
}
