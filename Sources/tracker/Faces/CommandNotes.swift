import TrackerModel
import TrackerOperations
import TrackerSystem

/// What a command run for mcp's file tools hears beside what it prints: how a file transfer moves (an assistant's
/// progress). The command line gives none.
final class CommandNotes: Sendable {
    /// Hears how many bytes of a file transfer have moved, of how many; nil hears nothing.
    let transferred: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    init(transferred: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) { self.transferred = transferred }
}
