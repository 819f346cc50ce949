#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension TaskAdd {
    func run(_ runner: Runner) async throws { try await runner.addTask(self) }
}

extension Runner {
    fileprivate func addTask(_ options: TaskAdd) async throws {
        switch try await perform(options) {
        case .planned(let request): try output.standardOutput(request.body!.serialized() + "\n")
        case .done(.found(let task), let project, let rows):
            narrate(
                "Task \"\(options.name)\" is already in \"\(project.name ?? project.id)\" (\(task.id)).",
                options.mode)
            try printTask(task, rows, options.mode)
        case .done(.created(let task), let project, let rows):
            narrate("Added \"\(options.name)\" to \"\(project.name ?? project.id)\".", options.mode)
            try printTask(task, rows, options.mode)
        }
    }

    /// The one task a command wrote: its id, its JSON object, or nothing.
    func printTask(_ task: ProjectTask, _ rows: TaskRows, _ mode: WriteMode) throws {
        if mode.quiet { return }
        try output.standardOutput(mode.json ? rows.json(task) + "\n" : task.id + "\n")
    }
}
