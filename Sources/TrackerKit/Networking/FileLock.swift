import Foundation

/// An advisory lock on a file in tracker's runtime directory, shared by every tracker process of the user.
///
/// The lock lives on the open descriptor, so a crashed process leaves no stale lock behind.
public final class FileLock {
    private let descriptor: Int32

    /// Blocks until the lock named `name` is held; nil when the lock file cannot be opened (tracker then runs unlocked).
    public init?(name: String, environment: [String: String]) {
        descriptor = Self.open(Self.runtimeDirectory(environment: environment) + "/" + name)
        guard descriptor >= 0 else { return nil }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// `$XDG_RUNTIME_DIR/tracker`, else `$TMPDIR/tracker-UID` (or /tmp), private to the user.
    static func runtimeDirectory(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/tracker" }
        return (environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp") + "/tracker-\(getuid())"
    }

    /// Opens (creating) a file in a private directory, refusing to follow a planted symlink.
    static func open(_ path: String) -> Int32 {
        mkdir((path as NSString).deletingLastPathComponent, 0o700)
        return Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }

    /// A file name for `parts` that is safe and short whatever the parts hold (FNV-1a).
    static func name(prefix: String, _ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{0}").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return prefix + "-" + String(hash, radix: 16)
    }
}
