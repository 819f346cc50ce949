#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

extension Add: Command {
    func run(_ runner: Runner) async throws { try await runner.add(self) }
}

extension Runner {
    /// `tracker add`: prints the new project's id (or its JSON), and one line for a person at a terminal.
    fileprivate func add(_ options: Add) async throws {
        switch try await perform(options) {
        case .planned(let request):
            try output.standardOutput(request.body!.serialized() + "\n")
        case .done(.found(let existing)):
            narrate("Project \"\(options.name)\" already exists (\(existing.id)); nothing to do.", options.mode)
            try printWritten(existing, options.mode)
        case .done(.created(let project)):
            let when = options.input.due.map { ", due \($0) (\($0.relative(to: today)))" } ?? ""
            narrate("Created \"\(options.name)\"\(when).", options.mode)
            try printWritten(project, options.mode)
        }
    }
}
