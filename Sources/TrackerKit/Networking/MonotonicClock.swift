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
