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
import TrackerOperations
import TrackerSystem

/// The files of one `tracker edit`: the form in a private temporary file while the editor has it, removed after; and,
/// when an edit is not applied, what was typed kept in tracker's state directory (docs/contract.md "edit").
struct EditFiles {
    var context: Context
    var recordID: String
    /// The form as first written: an editor that fails having changed nothing leaves nothing to keep.
    var opened: String

    /// Hands `text` to `editor` in a new 0600 file and returns what the editor left there; the file is gone after.
    func edit(_ text: String, editor: String) throws -> String {
        let directory = context.temporaryDirectory
        guard let (path, descriptor) = Self.create(in: directory, prefix: "tracker-edit-\(recordID)-") else {
            throw AppError.file("cannot create a file for the editor in \(directory): \(POSIX.describe(errno))")
        }
        defer { unlink(path) }
        let written = Self.write(text, to: descriptor)
        close(descriptor)
        guard written else { throw AppError.file("cannot write the form to \(path): \(POSIX.describe(errno))") }
        let status = context.interruption.whileAnotherProgramRuns { context.runEditor(editor, path) }
        let reading = POSIX.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard reading >= 0 else {
            throw AppError.file("the editor left no file at \(path) (\(POSIX.describe(errno))), so nothing was written")
        }
        let edited = String(decoding: POSIX.readAll(reading), as: UTF8.self)
        close(reading)
        guard status == 0 else {
            let how =
                status.map { $0 == 127 ? "could not be started (127)" : "exited with status \($0)" } ?? "was killed"
            let failure = AppError.declined("the editor (\(editor)) \(how), so nothing was written")
            guard edited != opened else { throw failure }
            throw AppError.editKept(failure, path: keep(edited))
        }
        return edited
    }

    /// Keeps `text` in a new 0600 file in tracker's state directory (else the temporary directory): its path.
    func keep(_ text: String) -> String {
        let stamp = ISOInstant.text(context.now()).filter { $0.isNumber || $0 == "T" }.prefix(15)
        let name = "edit-\(recordID)-\(stamp).txt"
        if let state = context.stateDirectory, state.read(name) == nil, state.write(Array(text.utf8), to: name) {
            return state.path + "/" + name
        }
        if let (path, descriptor) = Self.create(in: context.temporaryDirectory, prefix: "tracker-kept-\(recordID)-") {
            defer { close(descriptor) }
            if Self.write(text, to: descriptor) { return path }
        }
        return "no file (neither the state directory nor \(context.temporaryDirectory) can be written)"
    }

    /// A new file only this user can read (mkstemps makes it 0600), `prefix` and six random characters then `.txt`: its path and descriptor.
    private static func create(in directory: String, prefix: String) -> (String, Int32)? {
        var template = Array((directory + "/" + prefix + "XXXXXX.txt").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard descriptor >= 0 else { return nil }
        return (
            String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self),
            descriptor
        )
    }

    private static func write(_ text: String, to descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                POSIX.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
