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
import TrackerSystem

/// Where serve keeps its sign-ins (clients, codes, grants, tokens by digest): the team's Redis when serves share one,
/// else a 0600 file. Values are JSON text with a life; `take` is the single-use read every code and state needs.
package protocol SignInStore: Sendable {
    /// The value at `key`, unless gone or expired.
    func get(_ key: String) throws(AppError) -> String?
    /// Sets `key` to `value` for `seconds`.
    func put(_ key: String, _ value: String, liveFor seconds: Double) throws(AppError)
    /// Reads and removes `key` at once: of several callers, only one gets the value.
    func take(_ key: String) throws(AppError) -> String?
    func delete(_ key: String) throws(AppError)
    /// Every live key beginning with `prefix`, with its value.
    func entries(prefix: String) throws(AppError) -> [(key: String, value: String)]
    /// Runs `body` while holding the lock `name`, which every serve sharing the store respects (a refresh of a
    /// person's Airtable grant is made once). Nil when the lock could not be had within `seconds`.
    func exclusively<T: Sendable>(_ name: String, within seconds: Double, _ body: @Sendable () async -> T) async -> T?
}

/// A store in this process, written through to a 0600 file (one serve on one machine; with no path, memory only).
/// Another process's change (`tracker serve grants --revoke`) is seen at the next use: the file is read again when
/// it was replaced, and every change is made under a lock on the file, from what the file holds then.
package final class FileSignInStore: SignInStore {
    private struct Entry: Codable { var value: String, until: Double }
    private let path: String?
    private let now: @Sendable () -> Double
    private let entries = Locked([String: Entry]())
    /// The file as last read or written (its inode and modification time): another change is a reason to read again.
    private let seen = Locked<FileIdentity?>(nil)
    private let locks = Locked(Set<String>())

    /// The store kept at `path` (read now when it exists), or in memory alone.
    package init(path: String?, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 })
        throws(AppError)
    {
        self.path = path
        self.now = now
        try reload()
    }

    /// Reads the file again when it changed since it was last read or written here.
    private func reload() throws(AppError) {
        guard let path else { return }
        let identity = FileIdentity(path)
        guard identity != seen.withLock({ $0 }) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            entries.withLock { $0 = [:] }
            seen.withLock { $0 = identity }
            return
        }
        guard let kept = try? JSONDecoder().decode([String: Entry].self, from: data) else {
            throw .file("the sign-in store \(path) could not be read: move it aside and people sign in again")
        }
        let time = now()
        entries.withLock { $0 = kept.filter { $0.value.until > time } }
        seen.withLock { $0 = identity }
    }

    package func get(_ key: String) throws(AppError) -> String? {
        try reload()
        let time = now()
        return entries.withLock { $0[key].flatMap { $0.until > time ? $0.value : nil } }
    }

    package func put(_ key: String, _ value: String, liveFor seconds: Double) throws(AppError) {
        let until = now() + seconds
        try change { $0[key] = Entry(value: value, until: until) }
    }

    package func take(_ key: String) throws(AppError) -> String? {
        let time = now()
        var taken: String?
        try change { entries in
            taken = entries.removeValue(forKey: key).flatMap { $0.until > time ? $0.value : nil }
        }
        return taken
    }

    package func delete(_ key: String) throws(AppError) { try change { $0[key] = nil } }

    package func entries(prefix: String) throws(AppError) -> [(key: String, value: String)] {
        try reload()
        let time = now()
        return entries.withLock { entries in
            entries.filter { $0.key.hasPrefix(prefix) && $0.value.until > time }.map { ($0.key, $0.value.value) }
                .sorted { $0.key < $1.key }
        }
    }

    package func exclusively<T: Sendable>(_ name: String, within seconds: Double, _ body: @Sendable () async -> T)
        async -> T?
    {
        let end = MonotonicClock.now() + seconds
        while !locks.withLock({ $0.insert(name).inserted }) {
            guard MonotonicClock.now() < end else { return nil }
            await MonotonicClock.sleep(0.01)
        }
        defer { locks.withLock { _ = $0.remove(name) } }
        return await body()
    }

    /// Applies `edit` to what the file holds now and writes the whole store back (0600, replaced at once), under a
    /// lock every process using the file takes; expired entries are dropped.
    private func change(_ edit: (inout [String: Entry]) -> Void) throws(AppError) {
        let lock = path.map { open($0 + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600) } ?? -1
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                close(lock)
            }
        }
        try reload()
        let time = now()
        let written: Result<Void, AppError> = entries.withLock { entries in
            edit(&entries)
            entries = entries.filter { $0.value.until > time }
            guard let path else { return .success(()) }
            guard let data = try? JSONEncoder().encode(entries) else { return .failure(.file("the sign-in store")) }
            return Self.write(data, to: path)
        }
        try written.get()
        if let path { seen.withLock { $0 = FileIdentity(path) } }
    }

    private static func write(_ data: Data, to path: String) -> Result<Void, AppError> {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            return .failure(.file("the sign-in store \(path) could not be written"))
        }
        return .success(())
    }
}

/// A file's inode and modification time: when either differs, the file was replaced or written.
private struct FileIdentity: Equatable, Sendable {
    var inode: UInt64
    var seconds: Int
    var nanoseconds: Int

    init?(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        #if canImport(Darwin)
            (seconds, nanoseconds) = (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
        #else
            (seconds, nanoseconds) = (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
        #endif
    }
}
