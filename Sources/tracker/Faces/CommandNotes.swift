import TrackerModel
import TrackerOperations
import TrackerSystem

/// What a command knew beyond what it printed, kept for a face that shows more than the command line does: whether an
/// `--if-absent` create found the record there. The command line leaves it nil.
final class CommandNotes: Sendable {
    private let values = Locked<Bool?>(nil)
    /// Hears how many bytes of a file transfer have moved, of how many (an assistant's progress); nil hears nothing.
    let transferred: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    init(transferred: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) { self.transferred = transferred }

    /// Whether the create made the record (false: `--if-absent` found it there); nil when no create ran.
    var created: Bool? {
        get { values.withLock { $0 } }
        set { values.withLock { $0 = newValue } }
    }
}

extension Runner {
    /// Tells a listening face whether a create made the record (false: `--if-absent` found it there).
    func noteCreated(_ created: Bool) { context.notes?.created = created }
}
