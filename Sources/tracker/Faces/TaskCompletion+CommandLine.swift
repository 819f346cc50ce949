import TrackerAPI
import TrackerModel
import TrackerOperations

extension TaskCompletion {
    func run(_ runner: Runner) async throws { try await runner.setTasksComplete(self) }
}

extension Runner {
    fileprivate func setTasksComplete(_ options: TaskCompletion) async throws {
        switch try await perform(options) {
        case .planned(let requests): try printPlanned(requests)
        case .written(let tasks, let rows):
            if options.mode.quiet { return }
            if let rows {
                return try output.standardOutput("[\n" + tasks.map(rows.json).joined(separator: ",\n") + "\n]\n")
            }
            try output.standardOutput(tasks.map { $0.id + "\n" }.joined())
        }
    }
}
