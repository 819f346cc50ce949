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
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// tracker's cache directory: `$XDG_CACHE_HOME/tracker`, else `~/.cache/tracker`; 0700, files 0600.
///
/// Nothing in it is needed: a file that is missing, unreadable, corrupt or someone else's is simply not used.
package struct CacheDirectory: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// Where the cache lives for this environment; nil when neither variable is set (cron without HOME).
    package static func location(environment: [String: String]) -> CacheDirectory? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return CacheDirectory(path: cache + "/tracker")
        }
        if let home = environment["HOME"], home.hasPrefix("/") { return CacheDirectory(path: home + "/.cache/tracker") }
        return nil
    }

    /// Where `tracker changes` keeps its snapshots: `$XDG_STATE_HOME/tracker`, else `~/.local/state/tracker`. Unlike
    /// the cache, what is there matters (it is what was last reported), so a failure to write it is an error.
    package static func stateLocation(environment: [String: String]) -> CacheDirectory? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return CacheDirectory(path: state + "/tracker")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return CacheDirectory(path: home + "/.local/state/tracker")
        }
        return nil
    }

    /// Removes `name`; true when it is gone (or was never there).
    package func remove(_ name: String) -> Bool { unlink(path + "/" + name) == 0 || errno == ENOENT }

    /// The bytes of `name`, if it is a regular file of this user's in a directory only this user can use.
    package func read(_ name: String) -> Data? { bytes(name).map { Data($0) } }

    /// The bytes of `name`, as `read` finds them, read into one array sized from the file: a snapshot of 50,000
    /// projects is not grown chunk by chunk and then copied.
    package func bytes(_ name: String) -> [UInt8]? {
        guard isPrivate(create: false) else { return nil }
        let descriptor = open(path + "/" + name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            return nil
        }
        // One byte more than the size, so a file that grew since `fstat` is seen to and read on.
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(65_536, count))) }
            let read = bytes.withUnsafeMutableBytes {
                POSIX.read(descriptor, $0.baseAddress! + count, $0.count - count)
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Replaces `name` with `data` at once (written aside, then renamed), so a reader never sees half a file.
    @discardableResult
    package func write(_ data: some ContiguousBytes, to name: String, durable: Bool = false) -> Bool {
        isPrivate(create: true)
            && ReplacedFile.replace(path + "/" + name, with: data, mode: 0o600, durable: durable) == 0
    }

    /// Whether the directory is this user's and closed to others, creating it (and its parents) when asked.
    private func isPrivate(create: Bool) -> Bool {
        if create {
            _ = POSIX.makeDirectories(Path.directory(of: path))
            if mkdir(path, 0o700) != 0 && errno != EEXIST { return false }
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else { return false }
        if info.st_mode & 0o077 != 0 { return chmod(path, 0o700) == 0 }
        return true
    }
}
