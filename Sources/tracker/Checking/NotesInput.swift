#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Runner {
    /// The notes (or a comment) a command was given: inline, from a file (`flag` names it), or from standard input.
    func readNotes(_ source: NotesSource?, command: String, flag: String = "--notes-file") throws -> String? {
        switch source {
        case nil: return nil
        case .text(let text): return text
        case .standardInput:
            if context.isStdinTerminal {
                output.standardError(
                    "Reading \(command == "comment" ? "the comment" : "notes") from stdin; end with Ctrl-D.\n")
            }
            return Self.droppingOneTrailingNewline(String(decoding: context.readStandardInput(), as: UTF8.self))
        case .file(let path):
            let data = try contents(ofFile: path, naming: "\(flag) \(path)")
            guard let text = String(data: data, encoding: .utf8) else {
                throw AppError.usage("\(flag) \(path) is not UTF-8 text", command: command)
            }
            return Self.droppingOneTrailingNewline(text)
        }
    }

    /// Text as typed or saved ends in one newline that is not part of the notes (`echo`, editors, Ctrl-D after Enter).
    static func droppingOneTrailingNewline(_ text: String) -> String {
        // "\r\n" is one Character, so one dropLast takes either ending.
        text.hasSuffix("\n") || text.hasSuffix("\r\n") ? String(text.dropLast()) : text
    }
}
