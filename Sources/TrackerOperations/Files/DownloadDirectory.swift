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
import TrackerSystem
import TrackerModel

/// The directory files are saved in, held open: every file is created, checked and renamed relative to it, by a
/// plain name, so nothing is written outside it or through a symbolic link.
package final class DownloadDirectory: Sendable {
    package let descriptor: Int32
    /// The directory as the user typed it, for the paths printed.
    package let shown: String

    /// Opens (creating) `path`; a directory that cannot be made or written to is one line and exit 1.
    package init(path: String, shown: String) throws {
        let code = POSIX.makeDirectories(path)
        guard code == 0 else { throw AppError.output("\(TextCells.folded(shown)): \(POSIX.describe(code))") }
        let descriptor = POSIX.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw AppError.output("\(TextCells.folded(shown)): \(POSIX.describe(errno))") }
        guard access(path, W_OK | X_OK) == 0 else {
            let reason = POSIX.describe(errno)
            close(descriptor)
            throw AppError.output("\(TextCells.folded(shown)): \(reason)")
        }
        self.descriptor = descriptor
        self.shown = shown
    }

    deinit { close(descriptor) }

    /// `DIR/name` as printed.
    package func path(_ name: String) -> String {
        shown == "." ? name : (shown.hasSuffix("/") ? shown : shown + "/") + name
    }

    /// What is at `name` now, never following a symbolic link.
    package enum Existing: Equatable {
        case nothing
        case file(size: Int)
        /// A symbolic link: never written through; `--force` replaces the link itself.
        case link
        /// A directory or anything else.
        case other
    }

    package func existing(_ name: String) -> Existing {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .nothing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int(info.st_size))
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// The name an attachment is written to until complete: hidden, and the same on a rerun, which clears what an
    /// interrupted run (kill -9) left.
    package static func temporaryName(for id: String) -> String { ".tracker-\(FileNames.safe(id, id: id)).part" }

    /// Creates the temporary file afresh, refusing to open it through a link; its descriptor.
    package func createTemporary(_ name: String) throws -> Int32 {
        if unlinkat(descriptor, name, 0) != 0 && errno != ENOENT {
            throw AppError.output("\(TextCells.folded(path(name))): \(POSIX.describe(errno))")
        }
        let file = openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard file >= 0 else { throw AppError.output("\(TextCells.folded(path(name))): \(POSIX.describe(errno))") }
        return file
    }

    package func remove(_ name: String) { unlinkat(descriptor, name, 0) }

    /// Puts the complete file in place: without `replacing`, only where nothing is (a hard link, which never
    /// replaces; false when something appeared meanwhile); with it, over what is there (a link itself, not its
    /// target).
    package func place(_ temporary: String, as name: String, replacing: Bool) throws -> Bool {
        defer { unlinkat(descriptor, temporary, 0) }
        if !replacing {
            if linkat(descriptor, temporary, descriptor, name, 0) == 0 { return true }
            if errno == EEXIST { return false }
            // A file system without hard links: a rename, after checking again that nothing is there.
            guard existing(name) == .nothing else { return false }
        }
        guard renameat(descriptor, temporary, descriptor, name) == 0 else {
            throw AppError.output("\(TextCells.folded(path(name))): \(POSIX.describe(errno))")
        }
        return true
    }
}
