#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerSystem
import TrackerModel
import TrackerOperations

extension Runner {
    /// `path` as the user meant it: relative to the directory tracker was started in.
    func absolutePath(_ path: String) -> String {
        Path.absolute(path, from: context.currentDirectory)
    }

    /// The bytes of a file the user named; `label` is how a failure names it (`--notes-file notes.txt`).
    func contents(ofFile path: String, naming label: String) throws -> Data {
        let resolved = absolutePath(path)
        guard let data = FileManager.default.contents(atPath: resolved) else {
            let reason = FileManager.default.fileExists(atPath: resolved) ? "cannot be read" : "does not exist"
            throw AppError.file("\(label) \(reason)")
        }
        return data
    }
}
