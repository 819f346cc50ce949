#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel

/// Seconds on the machine-wide monotonic clock, comparable across processes and immune to wall-clock jumps.
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (boot).
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Sleeps for `seconds`, returning early if the task is cancelled.
    @Sendable public static func sleep(_ seconds: Double) async {
        // Clamped before converting: a wait from outside (a schedule, a header) must never trap on its size.
        try? await Task.sleep(nanoseconds: UInt64(min(max(0, seconds), 1e9) * 1e9))
    }
}
