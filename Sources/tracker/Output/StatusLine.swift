import TrackerSystem
import TrackerModel
import TrackerOperations
/// One line on stderr saying what tracker is waiting for, redrawn in place, and cleared before anything else is
/// written. Made only when stderr is a terminal, so pipes and cron never see it.
final class StatusLine: Sendable {
    /// Whether a line is shown, and whether it says why tracker waits (which progress must not hide).
    private let shown = Locked((isShown: false, isWait: false))
    private let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Replaces the line with `text`. A wait (a rate-limit countdown, a queue) is not replaced by progress until
    /// it is cleared.
    func show(_ text: String, isWait: Bool = false) {
        shown.withLock { shown in
            guard isWait || !shown.isWait else { return }
            write("\r\u{1B}[K" + StandardErrorText.safe(text))
            shown = (true, isWait)
        }
    }

    /// Removes the line, if one is shown.
    func clear() {
        shown.withLock { shown in
            if shown.isShown { write("\r\u{1B}[K") }
            shown = (false, false)
        }
    }

    /// `output` with every write clearing the line first, so text never lands in the middle of it.
    func clearing(_ output: Output) -> Output {
        var wrapped = output
        let (out, err) = (output.standardOutput, output.rawStandardError)
        wrapped.standardOutput = { [self] text in
            clear()
            try out(text)
        }
        wrapped.rawStandardError = { [self] text in
            clear()
            err(text)
        }
        return wrapped
    }
}
