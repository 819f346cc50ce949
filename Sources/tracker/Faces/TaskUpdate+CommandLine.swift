import TrackerModel
import TrackerOperations

extension TaskUpdate {
    func run(_ runner: Runner) async throws {
        let options = self
        switch try await runner.perform(options) {
        case .planned(let requests): try runner.printPlanned(requests)
        case .updated(let updated, let rows, let moved):
            runner.narrate(
                "Updated \"\(updated.name ?? updated.id)\"\(moved.map { ", now in \"\($0.name ?? $0.id)\"" } ?? "").",
                options.mode)
            try runner.printTask(updated, rows, options.mode)
        }
    }
}
