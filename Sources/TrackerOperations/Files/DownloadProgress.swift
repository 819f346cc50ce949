#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerSystem
import TrackerModel

/// Files, bytes and rate of a download, on a terminal's status line (`show`, given by the face; nil elsewhere).
package final class DownloadProgress: Sendable {
    private struct State {
        package var finished = 0
        package var done = 0
        /// Bytes so far of the files in flight, by attachment id.
        package var current: [String: Int] = [:]
        package var name = ""
    }
    /// Shows a line on the status line, or clears it (nil); nil where there is none.
    private let status: (@Sendable (String?) -> Void)?
    /// A face's listener for the bytes moved (mcp's progress), beside or instead of the status line.
    private let heard: (@Sendable (Int, Int) -> Void)?
    private let files: Int
    private let bytes: Int
    private let now: @Sendable () -> Double
    private let started: Double
    private let state = Locked(State())

    package init(
        status: (@Sendable (String?) -> Void)?, files: Int, bytes: Int, now: @escaping @Sendable () -> Double,
        heard: (@Sendable (Int, Int) -> Void)? = nil
    ) {
        self.status = status
        self.heard = heard
        self.files = files
        self.bytes = bytes
        self.now = now
        started = now()
    }

    package func start(_ id: String, name: String) {
        state.withLock {
            $0.current[id] = 0
            $0.name = name
        }
        show()
    }

    package func update(_ id: String, bytes: Int64) {
        state.withLock { $0.current[id] = Int(bytes) }
        show()
    }

    package func forget(_ id: String) { state.withLock { $0.current[id] = nil } }

    package func finish(_ id: String, bytes: Int) {
        state.withLock {
            $0.current[id] = nil
            $0.done += bytes
            $0.finished += 1
        }
        show()
    }

    package func clear() { status?(nil) }

    /// Bytes written so far.
    package var total: Int { state.withLock { $0.done } }

    /// `1.2s`.
    package var elapsed: String {
        let seconds = now() - started
        return seconds < 10 ? String(Double(Int(seconds * 10)) / 10) + "s" : "\(Int(seconds))s"
    }

    private func show() {
        guard status != nil || heard != nil else { return }
        let (finished, name, received) = state.withLock {
            ($0.finished, $0.name, $0.done + $0.current.values.reduce(0, +))
        }
        heard?(received, bytes)
        guard let status else { return }
        let seconds = max(0.001, now() - started)
        let rate = Int(Double(received) / seconds)
        status(
            "tracker: downloading \(min(files, finished + 1))/\(files) \(name): \(ByteCount.text(received)) of \(ByteCount.text(bytes)), \(ByteCount.text(rate))/s"
        )
    }
}
