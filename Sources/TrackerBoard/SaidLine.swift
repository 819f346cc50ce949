import TrackerModel
import TrackerSystem

/// What a command said on stderr while the board ran (a warning the full screen would hide), kept for the bottom line;
/// saying it wakes the board, so a warning from a background task (the team's copy's poller) shows at once, not at
/// the next key.
package final class SaidLine: Sendable {
    private let line = Locked<String?>(nil)
    private let wake = Locked<(@Sendable () -> Void)?>(nil)

    package init() {}

    /// Keeps `text`'s first line, without `tracker: ` and `warning: ` (the bottom line is the warning), and wakes the
    /// board.
    package func say(_ text: String) {
        var first = Substring(text.split(separator: "\n").first ?? "")
        for prefix in ["tracker: ", "warning: "] where first.hasPrefix(prefix) { first = first.dropFirst(prefix.count) }
        line.withLock { $0 = String(first) }
        wake.withLock { $0 }?()
    }

    /// The line said since the last draw, taken, its first letter a capital.
    package func take() -> String? {
        line.withLock { said in
            defer { said = nil }
            return said?.firstLetterUppercased
        }
    }

    /// Forgets a line not drawn yet (a failed write says its own).
    package func forget() { line.withLock { $0 = nil } }

    /// Who is woken when something is said: the board's loop, once it runs.
    package func whenSaid(_ wake: @escaping @Sendable () -> Void) { self.wake.withLock { $0 = wake } }
}
