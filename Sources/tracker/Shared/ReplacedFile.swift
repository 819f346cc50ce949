import Foundation
import TrackerModel

/// A file another program reads while tracker rewrites it (a calendar a web server serves): written beside itself and
/// renamed over, so a reader sees the old file or the new one, never half of one.
enum ReplacedFile {
    /// Writes `data` to `path`; returns false, touching nothing (not even the modification time), when the file
    /// already holds exactly `data`. A new file gets the usual permissions (0666 less the umask); a replaced one
    /// keeps its own. `label` is how a failure names the file.
    static func write(_ data: Data, to path: String, naming label: String) throws -> Bool {
        if FileManager.default.contents(atPath: path) == data { return false }
        let directory = (path as NSString).deletingLastPathComponent
        let temporary =
            (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).tracker-\(getpid())"
        var existing = stat()
        let mode = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : nil
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode.map { mode_t($0) } ?? 0o666)
        guard descriptor >= 0 else { throw failure(label, errno) }
        var code: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    code = errno
                    return
                }
                offset += written
            }
        }
        if code == 0, let mode { fchmod(descriptor, mode) }
        if code == 0 && fsync(descriptor) != 0 { code = errno }
        close(descriptor)
        if code == 0 && rename(temporary, path) != 0 { code = errno }
        if code != 0 {
            unlink(temporary)
            throw failure(label, code)
        }
        return true
    }

    private static func failure(_ label: String, _ code: Int32) -> AppError {
        // Exit 1, not "not found" (66): what failed is writing, and the spec has no code of its own for that.
        .output("\(label): \(String(cString: strerror(code)))")
    }
}
