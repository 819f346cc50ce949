#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Comment: Command {
    /// Reads the text first (stdin before anything else), then posts it once.
    func run(_ runner: Runner) async throws {
        var options = self
        options.source = .text(
            try Comment.text(try runner.readNotes(options.source, command: "comment", flag: "--file")))
        switch try await runner.perform(options) {
        case .planned(let request): try runner.printPlanned([request])
        case .notSent: return
        case .posted(let comment, let name):
            runner.narrate("Commented on \(name).", options.mode)
            if options.mode.quiet { return }
            try runner.output.standardOutput(options.mode.json ? comment.object.serialized() + "\n" : comment.id + "\n")
        }
    }
}
