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

extension Delete: Command {
    func run(_ runner: Runner) async throws { try await runner.delete(self) }
}

extension Runner {
    /// `tracker delete`: prints the deleted ids (or the projects, with `--json`) as Airtable confirms each batch.
    fileprivate func delete(_ options: Delete) async throws {
        var written = writtenOutput(options.mode)
        let outcome = try await perform(options) { session in
            try await options.run(in: session) { batch in
                switch batch {
                case .ids(let ids): try written.emitIDs(ids)
                case .projects(let projects): try written.emit(projects)
                }
            }
        }
        switch outcome {
        case .planned(let requests): try printPlanned(requests)
        case .deleted(let count):
            try written.finish()
            narrate("Deleted \(count) project\(count == 1 ? "" : "s").", options.mode)
        }
    }
}
