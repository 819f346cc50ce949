#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension Tasks: Command {
    func run(_ runner: Runner) async throws { try await runner.tasks(self) }
}

extension Runner {
    fileprivate func tasks(_ options: Tasks) async throws {
        let rows = try await perform(options)
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        switch format {
        case .json: try output.standardOutput(rows.jsonArray)
        case .ndjson: try output.standardOutput(rows.ndjson)
        case .tsv: try output.standardOutput(rows.tsv(options.columns))
        case .csv: try output.standardOutput(rows.csv(options.columns))
        case .table:
            let unicode = TimelineChart.Glyphs.localeIsUTF8(context.environment)
            let text = rows.grouped(width: output.terminalWidth ?? 80, style: style, unicode: unicode)
            if !text.isEmpty { try output.standardOutput(text) }
            output.standardError(rows.summary + "\n")
        }
    }
}
