#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension Comment: Command {
    func run(_ runner: Runner) async throws { try await runner.comment(self) }
}

extension Runner {
    /// Reads the text first (stdin before anything else), then posts it once.
    fileprivate func comment(_ options: Comment) async throws {
        var options = options
        options.source = .text(try Comment.text(try readNotes(options.source, command: "comment", flag: "--file")))
        switch try await perform(options) {
        case .planned(let request): try printPlanned([request])
        case .notSent: return
        case .posted(let comment, let name):
            narrate("Commented on \(name).", options.mode)
            if options.mode.quiet { return }
            try output.standardOutput(options.mode.json ? comment.object.serialized() + "\n" : comment.id + "\n")
        }
    }
}
