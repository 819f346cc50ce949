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

/// An advisory lock on a file in the runtime directory, shared by every tracker process of the user.
///
/// The lock lives on the open descriptor, so a crashed process leaves no stale lock behind.
public final class FileLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock `name`, waiting at most `seconds`; nil when there is no usable directory (tracker runs unlocked).
    public static func acquire(
        _ name: String, in directory: RuntimeDirectory, waitingAtMost seconds: Double, doing what: String,
        now: @Sendable () -> Double = MonotonicClock.now, sleep: @Sendable (Double) async -> Void = MonotonicClock.sleep
    ) async -> Result<FileLock?, AppError> {
        let descriptor = directory.open(name)
        guard descriptor >= 0 else { return .success(nil) }
        let started = now()
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let waited = now() - started
            guard errno == EWOULDBLOCK || errno == EINTR, waited < seconds else {
                close(descriptor)
                return .failure(.lockTimeout(what: what, waitedSeconds: Int(waited)))
            }
            await sleep(min(0.1, max(0.01, seconds - waited)))
            if Task.isCancelled {
                close(descriptor)
                return .failure(.interrupted)
            }
        }
        return .success(FileLock(descriptor: descriptor))
    }

    /// A file name for `parts` that is safe and short whatever the parts hold.
    public static func name(prefix: String, _ parts: [String]) -> String {
        prefix + "-" + String(StableHash.of(parts.joined(separator: "\u{0}")), radix: 16)
    }
}
