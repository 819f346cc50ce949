import TrackerModel
import TrackerOperations

extension TaskCompletion {
    func run(_ runner: Runner) async throws {
        let options = self
        switch try await runner.perform(options) {
        case .planned(let requests): try runner.printPlanned(requests)
        case .written(let tasks, let rows):
            if options.mode.quiet { return }
            if let rows {
                return try runner.output.standardOutput("[\n" + tasks.map(rows.json).joined(separator: ",\n") + "\n]\n")
            }
            try runner.output.standardOutput(tasks.map { $0.id + "\n" }.joined())
        }
    }
}
