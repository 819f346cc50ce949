import Foundation

extension Runner {
    /// `tracker list`: streams every matching project in the chosen format, page by page.
    func list(_ options: ListOptions) async throws {
        let client = try makeClient()
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        var renderer = makeRenderer(format, today: today, style: style, width: output.terminalWidth ?? 80)
        var tally: [ProjectStatus: Int] = [:]
        let email = options.filters.leadEmail
        let query = ListQuery(
            filterByFormula: Formula.matching(options.filters, today: today, fields: client.fields),
            sort: options.sort.map { [(client.fields[$0.word], options.descending ? .desc : .asc)] } ?? [],
            // A lead's email is matched here, not by Airtable, so the cap is applied here too.
            maxRecords: email == nil ? options.limit : nil)
        var remaining = options.limit ?? Int.max
        do {
            try await client.listProjects(query) { page in
                var page = page
                if let email { page = page.filter { $0.lead?.email?.lowercased() == email } }
                page = Array(page.prefix(remaining))
                remaining -= page.count
                for project in page { tally[project.status(today: today), default: 0] += 1 }
                let text = renderer.render(page: page)
                if !text.isEmpty { try output.standardOutput(text) }
                if remaining == 0 { throw ListingComplete() }
            }
        } catch is ListingComplete {}
        let closing = renderer.finish()
        if !closing.isEmpty { try output.standardOutput(closing) }
        if format == .table { output.standardError(Self.summary(tally)) }
    }

    /// Stops a listing early once `--limit` projects were shown.
    private struct ListingComplete: Error {}

    static func summary(_ tally: [ProjectStatus: Int]) -> String {
        let total = tally.values.reduce(0, +)
        guard total > 0 else { return "No projects.\n" }
        let parts = ProjectStatus.allCases.compactMap { status in tally[status].map { "\($0) \(status.rawValue)" } }
        return "\(total) project\(total == 1 ? "" : "s"): \(parts.joined(separator: ", "))\n"
    }
}
