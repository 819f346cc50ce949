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

/// The one directory where a user's tracker processes meet (the pacing slots and the `--if-absent` locks).
///
/// It is `/tmp/tracker-UID` whatever the environment: cron sets no `XDG_RUNTIME_DIR` and often another `TMPDIR`, and
/// two paths would let a cron job and a login shell burst into Airtable's lockout together. `TRACKER_RUNTIME_DIR`
/// overrides it, for tests and unusual machines.
public struct RuntimeDirectory: Sendable {
    /// The directory, when it is safe to use.
    let path: String?
    /// Why it is not, for a one-line warning.
    let problem: String?

    /// No shared directory: pacing and locks cover this process only (what tests use).
    public static let none = RuntimeDirectory(path: nil, problem: nil)

    /// Where the directory is for this environment.
    static func location(environment: [String: String]) -> String {
        if let path = environment["TRACKER_RUNTIME_DIR"], !path.isEmpty { return path }
        return "/tmp/tracker-\(getuid())"
    }

    /// Creates the directory 0700 if needed and checks that it is a directory of this user that nobody else can write.
    public static func prepare(environment: [String: String]) -> RuntimeDirectory {
        let path = location(environment: environment)
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            return RuntimeDirectory(path: nil, problem: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return RuntimeDirectory(path: nil, problem: "cannot use \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return RuntimeDirectory(path: nil, problem: "\(path) is not a directory")
        }
        // Someone else's directory could feed us false slots or hold our locks.
        guard info.st_uid == getuid() else {
            return RuntimeDirectory(path: nil, problem: "\(path) belongs to another user")
        }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            return RuntimeDirectory(path: nil, problem: "\(path) is open to other users and cannot be made private")
        }
        return RuntimeDirectory(path: path, problem: nil)
    }

    /// The warning for an unusable directory, naming the fallback.
    public var warning: String? {
        problem.map { "warning: \($0); pacing and locks now cover this process only" }
    }

    /// Opens (creating) a file in the directory, refusing to follow a planted symlink; -1 when there is no directory.
    public func open(_ name: String) -> Int32 {
        guard let path else { return -1 }
        return POSIX.open(path + "/" + name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }
}

extension RuntimeDirectory {
    /// Reads the text of file `name` (at most `capacity` bytes) under an exclusive `flock`, lets `change` change it, and
    /// writes it back (unless `change` leaves nil to write), padded with `padding` over the old text rather than
    /// truncated: truncating a file costs more than the rest. Nil when there is no directory.
    public func changingText<T>(
        _ name: String, capacity: Int, padding: UInt8, _ change: (inout String) -> (result: T, write: Bool)
    ) -> T? {
        let fd = open(name)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = pread(fd, &buffer, buffer.count, 0)
        var text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        let (result, write) = change(&text)
        guard write else { return result }
        var bytes = Array(text.utf8)
        if count > bytes.count { bytes += [UInt8](repeating: padding, count: count - bytes.count) }
        _ = pwrite(fd, bytes, bytes.count, 0)
        return result
    }
}
