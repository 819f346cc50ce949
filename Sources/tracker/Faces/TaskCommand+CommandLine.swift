#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension TaskCommand: Command {
    func run(_ runner: Runner) async throws {
        switch verb {
        case .add(let add): try await add.run(runner)
        case .show(let show): try await show.run(runner)
        case .completion(let completion): try await completion.run(runner)
        case .update(let update): try await update.run(runner)
        case .delete(let delete): try await delete.run(runner)
        }
    }
}
