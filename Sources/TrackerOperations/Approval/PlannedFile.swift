#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerModel
import TrackerSystem

/// A file an assistant's `attach` would upload, as its plan keeps it while a person decides: not the bytes (a plan
/// lives in the journal, perhaps the team's Redis) but where they are, how many, and their SHA-256. Approved, the file
/// is read again and sent only when it is still those bytes: a file changed or replaced since the plan (a link to
/// another file included) is never uploaded in its place.
package struct PlannedFile: Equatable, Sendable {
    package var file: UploadFile
    package var sha256: String

    /// The file a planned attach keeps; nil for an attach journaled without one (a write that was not held).
    package init?(change: JournalEntry.Change) {
        guard change.kind == .attach, let object = change.after.first?.1.arrayValue?.first,
            let path = object["path"]?.stringValue, let filename = object["filename"]?.stringValue,
            let size = object["size"]?.numberValue, let sha256 = object["sha256"]?.stringValue
        else { return nil }
        file = UploadFile(
            path: path, filename: filename, size: Int(size),
            contentType: object["type"]?.stringValue ?? ContentType.of(filename))
        self.sha256 = sha256
    }

    /// The plan's cell for `file`: its name, where it is, its size, type and digest.
    static func object(_ file: UploadFile, sha256: String) -> JSONValue {
        .object([
            ("filename", .string(file.filename)), ("path", .string(file.path)), ("size", .number(Double(file.size))),
            ("type", .string(file.contentType)), ("sha256", .string(sha256)),
        ])
    }

    /// The SHA-256 of the regular file at `path`, in hex.
    static func sha256(_ path: String) throws(AppError) -> String {
        guard let bytes = contents(of: path) else { throw AppError.file("\(TextCells.folded(path)) cannot be read") }
        return Digest.hex(Digest.sha256(bytes))
    }

    /// Whether the file is still the bytes the person was shown: a regular file (no link), its size and digest.
    var isUnchanged: Bool {
        guard let bytes = Self.contents(of: file.path), bytes.count == file.size else { return false }
        return Digest.hex(Digest.sha256(bytes)) == sha256
    }

    /// A regular file's bytes, at most the upload limit; nil for anything else (a directory, a device, gone, larger).
    /// A link is followed: what is sent is held to the digest, wherever it is read from.
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= ProjectAPIClient.uploadLimit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes += chunk[0..<count]
        }
        return nil
    }
}
