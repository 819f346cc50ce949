#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension Status: Command {
    func run(_ runner: Runner) async throws { try await runner.status(self) }
}

extension Runner {
    fileprivate func status(_ options: Status) async throws {
        let report = try await perform(options)
        if options.json { return try output.standardOutput(report.jsonText(today: today) + "\n") }
        guard !report.isEmpty else {
            return try output.standardOutput(
                "Nothing needs you today: no projects due within \(options.days) days, no open tasks.\n")
        }
        let width = output.isStdoutTerminal ? output.terminalWidth ?? 80 : 80
        let unicode = output.isStdoutTerminal && TimelineChart.Glyphs.localeIsUTF8(context.environment)
        try output.standardOutput(
            StatusView(today: today, days: options.days, style: style, width: width, unicode: unicode).render(report))
    }
}
