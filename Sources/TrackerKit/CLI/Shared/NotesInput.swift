import Foundation

extension Runner {
    /// The notes a command was given: inline, from a file, or from standard input.
    func readNotes(_ source: NotesSource?, command: String) throws -> String? {
        switch source {
        case nil: return nil
        case .text(let text): return text
        case .standardInput: return String(decoding: context.readStandardInput(), as: UTF8.self)
        case .file(let path):
            let resolved = path.hasPrefix("/") ? path : context.currentDirectory + "/" + path
            guard let data = FileManager.default.contents(atPath: resolved) else {
                let reason = FileManager.default.fileExists(atPath: resolved) ? "cannot be read" : "does not exist"
                throw AppError.file("--notes-file \(path) \(reason)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw AppError.usage("--notes-file \(path) is not UTF-8 text", command: command)
            }
            return text
        }
    }
}
