#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations
import TrackerSystem

/// A command's standard output as a tool reads it: whole, or as lines of which only the first `keeping` are kept and
/// every one is counted, so a listing of 50,000 records costs the memory of `limit` of them.
final class CapturedOutput: Sendable {
    private struct State {
        var text = ""
        var partial = ""
        var lines: [String] = []
        var count = 0
    }
    private let state = Locked(State())
    /// Lines kept; nil keeps the text whole.
    private let keeping: Int?
    /// Hears the number of lines so far, as they arrive.
    private let heard: (@Sendable (Int) -> Void)?

    init(keeping: Int?, heard: (@Sendable (Int) -> Void)? = nil) {
        self.keeping = keeping
        self.heard = heard
    }

    /// Takes what the command printed.
    func write(_ text: String) {
        guard let keeping else { return state.withLock { $0.text += text } }
        let count = state.withLock { state -> Int in
            guard text.contains("\n") else {
                state.partial += text
                return state.count
            }
            var parts = (state.partial + text).split(separator: "\n", omittingEmptySubsequences: false)
            state.partial = String(parts.removeLast())
            for line in parts where !line.isEmpty {
                state.count += 1
                if state.lines.count < keeping { state.lines.append(String(line)) }
            }
            return state.count
        }
        heard?(count)
    }

    /// Everything printed, for a command read whole.
    var text: String { state.withLock { $0.text } }

    /// The lines kept and how many there were in all (a last line without its newline counted too).
    var lines: (kept: [String], total: Int) {
        state.withLock { state in
            var kept = state.lines
            var total = state.count
            if !state.partial.isEmpty {
                total += 1
                if kept.count < (keeping ?? Int.max) { kept.append(state.partial) }
            }
            return (kept, total)
        }
    }
}
