import TrackerModel
import TrackerSystem

/// What a command knew beyond what it printed, kept for a face that shows more than the command line does: whether an
/// `--if-absent` create found the record there, the tasks `show` read. The command line leaves it nil.
final class CommandNotes: Sendable {
    private let values = Locked<[String: JSONValue]>([:])
    /// Hears how many bytes of a file transfer have moved, of how many (an assistant's progress); nil hears nothing.
    let transferred: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    init(transferred: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) { self.transferred = transferred }

    /// Keeps `value` under `key`, replacing what was there.
    func note(_ key: String, _ value: JSONValue) { values.withLock { $0[key] = value } }

    /// What was kept under `key`.
    func value(_ key: String) -> JSONValue? { values.withLock { $0[key] } }
}

extension Runner {
    /// Tells a listening face whether a create made the record (false: `--if-absent` found it there).
    func noteCreated(_ created: Bool) { context.notes?.note("created", .bool(created)) }
}
