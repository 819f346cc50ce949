#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Turns terminal echo off while a secret is typed, and back on afterwards, even if Ctrl-C ends tracker meanwhile.
package enum TerminalEcho {
    private static let saved = Locked<termios?>(nil)

    /// Reads one line from the terminal without echoing it.
    package static func readHidden(prompt: String) -> String? {
        _ = FileDescriptorWriter.write(prompt, to: STDERR_FILENO)
        var settings = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &settings) == 0
        if isTerminal {
            saved.withLock { $0 = settings }
            var hidden = settings
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden)
        }
        defer {
            restore()
            _ = FileDescriptorWriter.write("\n", to: STDERR_FILENO)
        }
        return Swift.readLine()
    }

    /// Puts echo back if a secret was being read.
    package static func restore() {
        guard
            var settings = saved.withLock({ value -> termios? in
                defer { value = nil }
                return value
            })
        else { return }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
    }
}
