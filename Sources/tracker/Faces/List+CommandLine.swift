#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

extension List: Command {
    func run(_ runner: Runner) async throws { try await runner.list(self) }
}

extension Runner {
    /// `tracker list`: streams every matching project in the chosen format, page by page.
    fileprivate func list(_ options: List) async throws {
        var options = options
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        options.format = format
        var renderer: (any ListRenderer)? = nil
        let progress = ListingProgress(status: output.isStdoutTerminal ? status : nil)
        defer { progress.stop() }
        let listing = try await perform(options) { session in
            try await options.run(in: session) { event in
                switch event {
                case .columns(let columns):
                    renderer = makeRenderer(
                        format, today: today, style: style, width: output.terminalWidth ?? 80, columns: columns,
                        formatter: FieldFormatter(table: session.layout.table, timeZone: context.timeZone))
                case .read(let count): progress.read(count)
                case .page(let page):
                    let text = renderer?.render(page: page) ?? ""
                    if !text.isEmpty {
                        progress.stop()
                        try output.standardOutput(text)
                    }
                }
            }
        }
        progress.stop()
        guard var renderer else { return }
        let closing = renderer.finish()
        if !closing.isEmpty { try output.standardOutput(closing) }
        guard format == .table else { return }
        var summary = Self.summary(listing.tally)
        if listing.moreMatch, let limit = options.limit { summary += " (showing \(limit); more match)" }
        output.standardError(summary + "\n")
        if !renderer.leftOut.isEmpty {
            let names = renderer.leftOut.map(\.title).joined(separator: " and ")
            let example = (listing.columns.filter { !renderer.leftOut.contains($0) }.prefix(2) + renderer.leftOut)
                .map(\.rawValue).joined(separator: ",")
            output.standardError(
                "tracker: \(names) left out to fit \(output.terminalWidth ?? 80) columns (try --columns \(example))\n")
        }
    }

    static func summary(_ tally: [ProjectStatus: Int]) -> String {
        let total = tally.values.reduce(0, +)
        guard total > 0 else { return "No projects." }
        let parts = ProjectStatus.allCases.compactMap { status in tally[status].map { "\($0) \(status.rawValue)" } }
        return "\(total) project\(total == 1 ? "" : "s"): \(parts.joined(separator: ", "))"
    }
}

/// "read 1,200 projects…" on the status line while a listing has shown nothing for a second (on a terminal only).
final class ListingProgress: Sendable {
    private let state = Locked((read: 0, stopped: false))
    private let ticker: Task<Void, Never>?

    init(status: StatusLine?) {
        guard let status else {
            ticker = nil
            return
        }
        let state = self.state
        ticker = Task {
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            while !Task.isCancelled {
                // Checked and drawn under one lock, so nothing is drawn once the listing has printed.
                let stopped = state.withLock { state -> Bool in
                    if !state.stopped {
                        status.show("tracker: read \(state.read.formatted()) project\(state.read == 1 ? "" : "s")…")
                    }
                    return state.stopped
                }
                if stopped { return }
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
    }

    func read(_ count: Int) { state.withLock { $0.read += count } }

    /// Ends the progress; the next write clears its line.
    func stop() {
        state.withLock { $0.stopped = true }
        ticker?.cancel()
    }
}
