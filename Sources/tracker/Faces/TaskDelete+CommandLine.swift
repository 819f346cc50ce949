import TrackerAPI
import TrackerModel
import TrackerOperations

extension TaskDelete {
    func run(_ runner: Runner) async throws { try await runner.deleteTasks(self) }
}

extension Runner {
    fileprivate func deleteTasks(_ options: TaskDelete) async throws {
        switch try await perform(options) {
        case .planned(let requests): try printPlanned(requests)
        case .deleted(let deleted):
            if !options.mode.quiet { try output.standardOutput(deleted.map { $0 + "\n" }.joined()) }
            narrate("Deleted \(deleted.count) task\(deleted.count == 1 ? "" : "s").", options.mode)
        }
    }
}
