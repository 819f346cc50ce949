#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations
import TrackerSystem

/// What a command run for mcp's file tools printed, whole: a JSON array or lines, read once it has finished.
final class CapturedOutput: Sendable {
    private let state = Locked("")

    /// Takes what the command printed.
    func write(_ text: String) { state.withLock { $0 += text } }

    /// Everything printed.
    var text: String { state.withLock { $0 } }
}
