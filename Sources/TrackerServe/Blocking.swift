import Dispatch
import TrackerSystem

/// The server's connections each have a thread of their own; async work (an MCP call) is run from one and waited for
/// there, which holds that connection only.
enum Blocking {
    /// Runs `work` as a task and waits for its result on this thread.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }!
    }
}

/// Messages a call sends as it goes (its progress, then its answer), handed from its task to the connection's thread
/// that streams them.
final class MessageQueue: Sendable {
    private let state = Locked((items: [String](), ended: false))
    private let ready = DispatchSemaphore(value: 0)

    func put(_ text: String) {
        state.withLock { $0.items.append(text) }
        ready.signal()
    }

    func end() {
        state.withLock { $0.ended = true }
        ready.signal()
    }

    /// The next message, waiting for it; nil once ended and empty.
    func take() -> String? {
        while true {
            let (item, ended) = state.withLock { state -> (String?, Bool) in
                state.items.isEmpty ? (nil, state.ended) : (state.items.removeFirst(), false)
            }
            if let item { return item }
            if ended { return nil }
            ready.wait()
        }
    }
}
