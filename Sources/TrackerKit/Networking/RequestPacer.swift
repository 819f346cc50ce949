import Foundation

/// Spaces requests to one base so they stay under Airtable's per-second limit.
public protocol RequestPacer: Sendable {
    /// Returns when the next request may be sent.
    func waitForTurn() async
    /// Holds every request back for `seconds`, after Airtable answered 429.
    func holdOff(seconds: Double)
}

/// A pacer that never waits, for tests and for endpoints with no limit.
public struct UnlimitedPacer: RequestPacer {
    public init() {}
    public func waitForTurn() async {}
    public func holdOff(seconds: Double) {}
}

/// Shares one schedule of send slots between every tracker process on the machine through a locked file.
///
/// The file holds the next free slot on the monotonic clock, which all processes share. Each request reserves a
/// slot under `flock` and then sleeps until it, so several cron jobs started in the same second queue up instead of
/// bursting into a 30-second lockout.
public final class FileRequestPacer: RequestPacer {
    private let path: String
    private let interval: Double
    private let sleep: @Sendable (Double) async -> Void

    /// Paces to `requestsPerSecond` using the slot file at `path`; falls back to in-process pacing if it is unusable.
    public init(path: String, requestsPerSecond: Double, sleep: @escaping @Sendable (Double) async -> Void) {
        self.path = path
        // A 5% margin keeps network jitter from squeezing six requests into one second at the server.
        self.interval = 1.05 / requestsPerSecond
        self.sleep = sleep
    }

    /// Where the slot file for `key` lives: the runtime directory if there is one, else the temp directory.
    public static func defaultPath(key: String, environment: [String: String]) -> String {
        let safeKey = String(key.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "_" })
        return FileLock.runtimeDirectory(environment: environment) + "/pace-" + safeKey
    }

    public func waitForTurn() async {
        let wait = reserve()
        if wait > 0 { await sleep(wait) }
    }

    public func holdOff(seconds: Double) {
        _ = update { now, next in max(next, now + seconds) }
    }

    /// Reserves the next slot and returns how long to sleep until it.
    private func reserve() -> Double {
        var slot = 0.0
        let now = update { now, next in
            slot = max(now, next)
            return slot + interval
        }
        return max(0, slot - now)
    }

    /// Reads the next free slot under an exclusive lock, stores `transform(now, next)`, and returns now.
    private func update(_ transform: (Double, Double) -> Double) -> Double {
        let now = MonotonicClock.now()
        let fd = openSlotFile()
        guard fd >= 0 else {
            fallback.withLock { $0 = transform(now, $0) }
            return now
        }
        defer { close(fd) }
        flock(fd, LOCK_EX)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = pread(fd, &buffer, 63, 0)
        let stored = count > 0 ? Double(String(decoding: buffer[0..<count], as: UTF8.self)) ?? 0 : 0
        // A slot far in the future is left from before a reboot (the monotonic clock restarted): ignore it.
        let next = stored > now + 600 ? 0 : stored
        let text = Array(String(transform(now, next)).utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        flock(fd, LOCK_UN)
        return now
    }

    private let fallback = Locked(0.0)

    private func openSlotFile() -> Int32 { FileLock.open(path) }
}
