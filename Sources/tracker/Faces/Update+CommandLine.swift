#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Update: Command {
    /// `tracker update`: prints the project's id (or its JSON), and what changed for a person at a terminal.
    func run(_ runner: Runner) async throws {
        let options = self
        switch try await runner.perform(options) {
        case .planned(let requests): try runner.printPlanned(requests)
        case .updated(nil, _): return
        case .updated(let updated?, let write):
            runner.narrate(
                "Updated \"\(updated.name ?? updated.id)\": \(runner.describe(write, as: updated)).", options.mode)
            try runner.printWritten(updated, options.mode)
        }
    }
}
