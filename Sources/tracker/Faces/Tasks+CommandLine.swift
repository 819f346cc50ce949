#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Tasks: Command {
    func run(_ runner: Runner) async throws {
        let options = self
        let rows = try await runner.perform(options)
        let format = options.format ?? (runner.output.isStdoutTerminal ? .table : .tsv)
        switch format {
        case .json: try runner.output.standardOutput(rows.jsonArray)
        case .ndjson: try runner.output.standardOutput(rows.ndjson)
        case .tsv: try runner.output.standardOutput(rows.tsv(options.columns))
        case .csv: try runner.output.standardOutput(rows.csv(options.columns))
        case .table:
            let unicode = TimelineChart.Glyphs.localeIsUTF8(runner.context.environment)
            let text = rows.grouped(width: runner.output.terminalWidth ?? 80, style: runner.style, unicode: unicode)
            if !text.isEmpty { try runner.output.standardOutput(text) }
            runner.output.standardError(rows.summary + "\n")
        }
    }
}
