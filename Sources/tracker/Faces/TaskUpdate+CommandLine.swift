import TrackerAPI
import TrackerModel
import TrackerOperations

extension TaskUpdate {
    func run(_ runner: Runner) async throws { try await runner.updateTask(self) }
}

extension Runner {
    fileprivate func updateTask(_ options: TaskUpdate) async throws {
        switch try await perform(options) {
        case .planned(let requests): try printPlanned(requests)
        case .updated(let updated, let rows, let moved):
            narrate(
                "Updated \"\(updated.name ?? updated.id)\"\(moved.map { ", now in \"\($0.name ?? $0.id)\"" } ?? "").",
                options.mode)
            try printTask(updated, rows, options.mode)
        }
    }
}
