#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerSystem
import TrackerModel

/// The checks every face's uploads pass before anything is sent.
package enum UploadChecks {
    /// Every FILE checked before anything is sent: it exists, is a regular readable file of at most 5 MB, and is not
    /// an address. The first that fails stops the command, so nothing of a batch is sent. A relative path is relative
    /// to `currentDirectory`.
    package static func files(_ paths: [String], command: String, relativeTo currentDirectory: String) throws
        -> [UploadFile]
    {
        guard !paths.isEmpty else {
            throw AppError.usage(
                "\(command) needs one or more files: tracker \(command) PROJECT FILE...", command: command)
        }
        return try paths.map { path in
            let shown = TextCells.folded(path)
            if path.contains("://") {
                throw AppError.usage(
                    "\(shown) is an address, not a file; download it first (tracker uploads files from this machine)",
                    command: command)
            }
            let resolved = Path.absolute(path, from: currentDirectory)
            var info = stat()
            guard stat(resolved, &info) == 0 else {
                let reason = errno == ENOENT ? "does not exist" : "cannot be read (\(POSIX.describe(errno)))"
                throw AppError.file("\(shown) \(reason)")
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw AppError.usage("\(shown) is a directory, not a file", command: command)
            default:
                throw AppError.usage("\(shown) is not a regular file (a device, a pipe or a socket)", command: command)
            }
            guard access(resolved, R_OK) == 0 else {
                throw AppError.file("\(shown) cannot be read (\(POSIX.describe(errno)))")
            }
            let size = Int(info.st_size)
            guard size <= ProjectAPIClient.uploadLimit else {
                throw AppError.usage(
                    "\(shown) is \(ByteCount.text(size)) (\(size.formatted()) bytes); Airtable's upload takes at most 5 MB (\(ProjectAPIClient.uploadLimit.formatted()) bytes) a file",
                    command: command)
            }
            let filename = Path.lastComponent(of: path)
            return UploadFile(path: resolved, filename: filename, size: size, contentType: ContentType.of(filename))
        }
    }
}
