import Foundation

/// Seconds on the machine-wide monotonic clock, comparable across processes and immune to wall-clock jumps.
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (boot).
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// A value guarded by a lock, for the little shared state tracker has.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
