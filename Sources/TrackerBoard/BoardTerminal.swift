#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CTerminal
import TrackerOperations
import Dispatch
import TrackerSystem

/// What wakes the board: nothing else does, so an idle board spends no CPU.
package enum BoardEvent: Sendable {
    case keys([Key])
    /// stdin ended or failed: the terminal went away.
    case inputEnded
    case resized
    /// Time to read the table again.
    case tick
    /// A page of the listing (`first`: of the board's first read).
    case page([BoardCard], first: Bool)
    /// A listing ended: every card it read, or why it failed.
    case read(Result<[BoardCard], AppErrorBox>, first: Bool)
    case tasks([String: (done: Int, total: Int, assignees: Set<String>)])
    case me(String?)
    /// What shows deletions: the base's webhook, or an id listing every 5 minutes.
    case deletions(String)
    /// Where the cards come from when it is not the board's own copy: the team's copy in Redis.
    case readsFrom(String)
    case card(CardDetail)
    /// A write ended: what to say on the bottom line, and what to put back on screen if Airtable refused it.
    case written(message: String, undo: BoardUndo?)
    /// The assistants' writes waiting for this person's approval (read with each read of the table, and on `a`).
    case approvals([ApprovalLine])
    /// A frame held back while pages arrive fast.
    case draw
}

/// One approval as the board lists it.
package struct ApprovalLine: Sendable, Equatable {
    package var id: String
    package var what: String
    package var diff: [String]
}

/// An error carried across tasks.
package struct AppErrorBox: Error, Sendable {
    package var message: String
}

/// What a refused write puts back.
package enum BoardUndo: Sendable {
    case project(String, complete: Bool)
    case task(projectID: String, taskID: String, done: Bool)
}

/// The terminal the board draws on: its size, raw input and the ways it can be taken away.
package enum BoardTerminal {
    /// The terminal's size, from the terminal itself.
    package static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Reads keys on a thread of its own: a read that blocks costs nothing; a lone ESC waits 40 ms for the rest of a
    /// sequence before it is the Esc key.
    package static func readKeys(into events: AsyncStream<BoardEvent>.Continuation) {
        let started = DetachedThread.start {
            var rest: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else {
                    events.yield(.inputEnded)
                    return
                }
                let (keys, left) = KeyParser.parse(rest + buffer[0..<count])
                rest = left
                if !keys.isEmpty { events.yield(.keys(keys)) }
                if !rest.isEmpty && tracker_terminal_wait_readable(STDIN_FILENO, 40) == 0 {
                    let finished = KeyParser.finish(rest)
                    rest = []
                    if !finished.isEmpty { events.yield(.keys(finished)) }
                }
            }
        }
        if !started { events.yield(.inputEnded) }
    }

    /// Hears the terminal change size.
    package static func watchResize(into events: AsyncStream<BoardEvent>.Continuation) -> any DispatchSourceSignal {
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { events.yield(.resized) }
        source.resume()
        return source
    }
}
