#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations
import TrackerSystem

extension List: Command {
    /// `tracker list`: streams every matching project in the chosen format, page by page.
    func run(_ runner: Runner) async throws {
        var options = self
        let format = options.format ?? (runner.output.isStdoutTerminal ? .table : .tsv)
        options.format = format
        var renderer: (any ListRenderer)? = nil
        let progress = ListingProgress(status: runner.output.isStdoutTerminal ? runner.status : nil)
        defer { progress.stop() }
        let listing = try await runner.perform(options) { session in
            try await options.run(in: session) { event in
                switch event {
                case .columns(let columns):
                    renderer = makeRenderer(
                        format, today: runner.today, style: runner.style, width: runner.output.terminalWidth ?? 80,
                        columns: columns,
                        formatter: FieldFormatter(table: session.layout.table, timeZone: runner.context.timeZone))
                case .read(let count): progress.read(count)
                case .page(let page):
                    let text = renderer?.render(page: page) ?? ""
                    if !text.isEmpty {
                        progress.stop()
                        try runner.output.standardOutput(text)
                    }
                }
            }
        }
        progress.stop()
        guard var renderer else { return }
        let closing = renderer.finish()
        if !closing.isEmpty { try runner.output.standardOutput(closing) }
        guard format == .table else { return }
        var summary = List.summary(listing.tally)
        if listing.moreMatch, let limit = options.limit { summary += " (showing \(limit); more match)" }
        runner.output.standardError(summary + "\n")
        if !renderer.leftOut.isEmpty {
            let names = renderer.leftOut.map(\.title).joined(separator: " and ")
            let example = (listing.columns.filter { !renderer.leftOut.contains($0) }.prefix(2) + renderer.leftOut)
                .map(\.rawValue).joined(separator: ",")
            runner.output.standardError(
                "tracker: \(names) left out to fit \(runner.output.terminalWidth ?? 80) columns (try --columns \(example))\n"
            )
        }
    }
}

extension List {
    /// The table's closing line: how many projects, by status.
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
