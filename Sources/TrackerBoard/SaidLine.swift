import TrackerModel
import TrackerSystem

/// What a command said on stderr while the board ran (a warning the full screen would hide), kept for the bottom line;
/// saying it wakes the board, so a warning from a background task (the team's copy's poller) shows at once, not at
/// the next key.
package final class SaidLine: Sendable {
    private let line = Locked<String?>(nil)
    private let wake = Locked<(@Sendable () -> Void)?>(nil)

    package init() {}

    /// Keeps `text`'s first line (without `tracker: `) and wakes the board.
    package func say(_ text: String) {
        let first = text.split(separator: "\n").first.map(String.init) ?? ""
        line.withLock { $0 = first.hasPrefix("tracker: ") ? String(first.dropFirst(9)) : first }
        wake.withLock { $0 }?()
    }

    /// The line said since the last draw, taken.
    package func take() -> String? {
        line.withLock { said in
            defer { said = nil }
            return said
        }
    }

    /// Forgets a line not drawn yet (a failed write says its own).
    package func forget() { line.withLock { $0 = nil } }

    /// Who is woken when something is said: the board's loop, once it runs.
    package func whenSaid(_ wake: @escaping @Sendable () -> Void) { self.wake.withLock { $0 = wake } }
}
