#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Add: Command {
    /// `tracker add`: prints the new project's id (or its JSON), and one line for a person at a terminal.
    func run(_ runner: Runner) async throws {
        let options = self
        switch try await runner.perform(options) {
        case .planned(let request):
            try runner.output.standardOutput(request.body!.serialized() + "\n")
        case .done(.found(let existing)):
            runner.narrate("Project \"\(options.name)\" already exists (\(existing.id)); nothing to do.", options.mode)
            try runner.printWritten(existing, options.mode)
        case .done(.created(let project)):
            let when = options.input.due.map { ", due \($0) (\($0.relative(to: runner.today)))" } ?? ""
            runner.narrate("Created \"\(options.name)\"\(when).", options.mode)
            try runner.printWritten(project, options.mode)
        }
    }
}
