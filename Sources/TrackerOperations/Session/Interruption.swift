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

/// Ctrl-C as tracker handles it: the process ends at once (130), except while a command can stop cleanly between
/// requests; then the first Ctrl-C asks it to stop there, and a second one still ends tracker at once.
package final class Interruption: Sendable {
    private let state = Locked((cleanStop: false, requested: false, notice: String?.none, editing: false))
    private let cleanup = Locked<[@Sendable () -> Void]>([])
    /// Told when a signal asks a command that stops cleanly to stop (`mcp` ends its input then).
    private let stopRequested = Locked<[@Sendable () -> Void]>([])
    /// What a SIGHUP does instead of stopping, when a face asked (nil: it stops as SIGTERM does).
    private let reloading = Locked<(@Sendable () -> Void)?>(nil)

    package init() {}

    /// Runs `work` (clearing the status line, removing a file half written) before a Ctrl-C ends tracker, after the
    /// work registered before it.
    package func beforeEnding(_ work: @escaping @Sendable () -> Void) {
        cleanup.withLock { $0.append(work) }
    }

    /// What must happen before tracker ends on Ctrl-C.
    package func end() {
        cleanUp()
        TerminalEcho.restore()
    }

    /// Runs the clean-ups registered, newest first (the file, then the line: nothing may redraw it once cleared); a
    /// cancelled MCP call ends this way without ending tracker.
    package func cleanUp() {
        for work in cleanup.withLock({ $0 }).reversed() { work() }
    }

    /// Lets the next Ctrl-C only ask for a stop, saying `notice` on stderr; nil returns to ending at once.
    package func stopBetweenRequests(notice: String?) {
        state.withLock {
            $0.cleanStop = true
            $0.notice = notice
        }
    }

    /// Runs `body` with Ctrl-C left to the program it starts and waits for (an editor, the demo's shell), as git
    /// does: the terminal sends it to both.
    package func whileAnotherProgramRuns<T>(_ body: () throws -> T) rethrows -> T {
        state.withLock { $0.editing = true }
        defer { state.withLock { $0.editing = false } }
        return try body()
    }

    /// Runs `work` when Ctrl-C, SIGTERM or SIGHUP asks a command that stops cleanly to stop (the first one).
    package func whenStopRequested(_ work: @escaping @Sendable () -> Void) {
        stopRequested.withLock { $0.append(work) }
    }

    /// Whether Ctrl-C asked the command to stop.
    package var isRequested: Bool { state.withLock { $0.requested } }

    /// Handles one Ctrl-C; true when tracker must end now.
    package func handleSignal() -> Bool {
        let (endNow, notice) = state.withLock { state -> (Bool, String?) in
            if state.editing { return (false, nil) }
            guard state.cleanStop, !state.requested else { return (true, nil) }
            state.requested = true
            return (false, state.notice)
        }
        if let notice { _ = FileDescriptorWriter.write("\n" + notice + "\n", to: STDERR_FILENO) }
        if !endNow { for work in stopRequested.withLock({ $0 }) { work() } }
        return endNow
    }

    /// Runs `work` on each SIGHUP instead of stopping (a server reads its configuration again).
    package func whenReloadRequested(_ work: @escaping @Sendable () -> Void) {
        reloading.withLock { $0 = work }
    }

    /// What SIGINT, SIGTERM or SIGHUP does (`CLI.run` hands them over): ends tracker as Ctrl-C does, its clean-ups
    /// run first (a file half downloaded is removed, hidden part and all), with 130, 143 or 129; or only asks a
    /// command that stops cleanly to stop.
    package func receive(signal number: Int32) {
        if number == SIGHUP, let reload = reloading.withLock({ $0 }) { return reload() }
        guard handleSignal() else { return }
        end()
        // Nothing buffered is worth printing after a signal that ends tracker.
        _exit(number == SIGINT ? ExitCode.interrupted.rawValue : 128 + number)
    }
}
