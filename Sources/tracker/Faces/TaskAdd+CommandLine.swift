#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension TaskAdd {
    func run(_ runner: Runner) async throws {
        let options = self
        switch try await runner.perform(options) {
        case .planned(let request): try runner.output.standardOutput(request.body!.serialized() + "\n")
        case .done(.found(let task), let project, let rows):
            runner.narrate(
                "Task \"\(options.name)\" is already in \"\(project.name ?? project.id)\" (\(task.id)).",
                options.mode)
            try runner.printTask(task, rows, options.mode)
        case .done(.created(let task), let project, let rows):
            runner.narrate("Added \"\(options.name)\" to \"\(project.name ?? project.id)\".", options.mode)
            try runner.printTask(task, rows, options.mode)
        }
    }
}
