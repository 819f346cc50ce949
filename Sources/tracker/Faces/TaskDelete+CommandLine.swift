import TrackerModel
import TrackerOperations

extension TaskDelete {
    func run(_ runner: Runner) async throws {
        let options = self
        switch try await runner.perform(options) {
        case .planned(let requests): try runner.printPlanned(requests)
        case .deleted(let deleted):
            if !options.mode.quiet { try runner.output.standardOutput(deleted.map { $0 + "\n" }.joined()) }
            runner.narrate("Deleted \(deleted.count) task\(deleted.count == 1 ? "" : "s").", options.mode)
        }
    }
}
