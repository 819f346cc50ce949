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

/// Files tracker writes while others may read them (the secrets file, the cache, a calendar a web server serves):
/// written whole beside themselves and renamed over, so a reader sees the old file or the new one, never half of one,
/// and an interrupted write leaves the old one.
package enum ReplacedFile {
    /// Replaces `path` with `bytes`; 0, or the errno that stopped it (nothing is left behind then). The file gets
    /// `mode`; with `keepingExisting`, `EEXIST` instead of replacing a file that is there. `durable` waits for the disk
    /// before renaming, for files whose loss matters (a cache's does not, and it is written on every listing).
    package static func replace(
        _ path: String, with bytes: some ContiguousBytes, mode: mode_t, keepingExisting: Bool = false,
        durable: Bool = true
    ) -> Int32 {
        let directory = Path.directory(of: path)
        let temporary =
            (directory.isEmpty ? "." : directory) + "/.\(Path.lastComponent(of: path)).\(getpid())."
            + String(UInt32.random(in: 0...UInt32.max))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { return errno }
        var code: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = POSIX.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    code = errno
                    return
                }
                offset += written
            }
        }
        // The mode as asked, whatever the umask.
        if code == 0 && fchmod(descriptor, mode) != 0 { code = errno }
        if code == 0 && durable && fsync(descriptor) != 0 { code = errno }
        close(descriptor)
        if code == 0 && keepingExisting && access(path, F_OK) == 0 { code = EEXIST }
        if code == 0 && rename(temporary, path) != 0 { code = errno }
        if code != 0 { unlink(temporary) }
        return code
    }

    /// Writes `data` to `path`; returns false, touching nothing (not even the modification time), when the file
    /// already holds exactly `data`. A new file gets the usual permissions (0666 less the umask); a replaced one
    /// keeps its own. `label` is how a failure names the file.
    package static func write(_ data: Data, to path: String, naming label: String) throws -> Bool {
        if FileManager.default.contents(atPath: path) == data { return false }
        var existing = stat()
        let mask = umask(0)
        umask(mask)
        let mode = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : 0o666 & ~mask
        let code = replace(path, with: data, mode: mode)
        // Exit 1, not "not found" (66): what failed is writing, and the spec has no code of its own for that.
        guard code == 0 else { throw AppError.output("\(label): \(String(cString: strerror(code)))") }
        return true
    }
}
