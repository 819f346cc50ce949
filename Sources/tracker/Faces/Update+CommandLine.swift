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

extension Update: Command {
    func run(_ runner: Runner) async throws { try await runner.update(self) }
}

extension Runner {
    /// `tracker update`: prints the project's id (or its JSON), and what changed for a person at a terminal.
    fileprivate func update(_ options: Update) async throws {
        switch try await perform(options) {
        case .planned(let requests): try printPlanned(requests)
        case .updated(nil, _): return
        case .updated(let updated?, let write):
            narrate("Updated \"\(updated.name ?? updated.id)\": \(describe(write, as: updated)).", options.mode)
            try printWritten(updated, options.mode)
        }
    }
}
