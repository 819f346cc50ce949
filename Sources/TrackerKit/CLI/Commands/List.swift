import Foundation

extension Runner {
    /// `tracker list`: streams every matching project in the chosen format, page by page.
    func list(_ options: ListOptions) async throws {
        let client = try makeClient()
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        var renderer = makeRenderer(
            format, today: today, style: style, width: output.terminalWidth ?? 80, columns: options.columns)
        var tally: [ProjectStatus: Int] = [:]
        let email = options.filters.leadEmail
        let query = ListQuery(
            filterByFormula: Formula.matching(options.filters, today: today, fields: client.fields),
            sort: options.sort.map { [(client.fields[$0.word], options.descending ? .desc : .asc)] } ?? [],
            // One more than the limit tells whether more match. A lead's email is matched here, not by Airtable.
            maxRecords: email == nil ? options.limit.map { $0 + 1 } : nil)
        var remaining = options.limit ?? Int.max
        var moreMatch = false
        let progress = ListingProgress(status: output.isStdoutTerminal ? status : nil)
        defer { progress.stop() }
        do {
            try await client.listProjects(query) { page in
                progress.read(page.count)
                var page = page
                if let email { page = page.filter { $0.lead?.email?.lowercased() == email } }
                if page.count > remaining {
                    moreMatch = true
                    page = Array(page.prefix(remaining))
                }
                remaining -= page.count
                for project in page { tally[project.status(today: today), default: 0] += 1 }
                let text = renderer.render(page: page)
                if !text.isEmpty {
                    progress.stop()
                    try output.standardOutput(text)
                }
                if moreMatch { throw ListingComplete() }
            }
        } catch is ListingComplete {}
        progress.stop()
        let closing = renderer.finish()
        if !closing.isEmpty { try output.standardOutput(closing) }
        guard format == .table else { return }
        var summary = Self.summary(tally)
        if moreMatch, let limit = options.limit { summary += " (showing \(limit); more match)" }
        output.standardError(summary + "\n")
        if !renderer.leftOut.isEmpty {
            let names = renderer.leftOut.map(\.title).joined(separator: " and ")
            let example = (options.columns.filter { !renderer.leftOut.contains($0) }.prefix(2) + renderer.leftOut)
                .map(\.rawValue).joined(separator: ",")
            output.standardError(
                "tracker: \(names) left out to fit \(output.terminalWidth ?? 80) columns (try --columns \(example))\n")
        }
    }

    /// Stops a listing once `--limit` projects were shown and one more told that more match.
    private struct ListingComplete: Error {}

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
