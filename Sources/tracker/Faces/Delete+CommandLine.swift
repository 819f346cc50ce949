#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Delete: Command {
    /// `tracker delete`: prints the deleted ids (or the projects, with `--json`) as Airtable confirms each batch.
    func run(_ runner: Runner) async throws {
        let options = self
        var written = runner.writtenOutput(options.mode)
        let outcome = try await runner.perform(options) { session in
            try await options.run(in: session) { batch in
                switch batch {
                case .ids(let ids): try written.emitIDs(ids)
                case .projects(let projects): try written.emit(projects)
                }
            }
        }
        switch outcome {
        case .planned(let requests): try runner.printPlanned(requests)
        case .deleted(let count):
            try written.finish()
            runner.narrate("Deleted \(count) project\(count == 1 ? "" : "s").", options.mode)
        }
    }
}
