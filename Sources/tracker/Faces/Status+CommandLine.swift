#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Status: Command {
    func run(_ runner: Runner) async throws {
        let options = self
        let report = try await runner.perform(options)
        if options.json { return try runner.output.standardOutput(report.jsonText(today: runner.today) + "\n") }
        guard !report.isEmpty else {
            return try runner.output.standardOutput(
                "Nothing needs you today: no projects due within \(options.days) days, no open tasks.\n")
        }
        let width = runner.output.isStdoutTerminal ? runner.output.terminalWidth ?? 80 : 80
        let unicode = runner.output.isStdoutTerminal && TimelineChart.Glyphs.localeIsUTF8(runner.context.environment)
        try runner.output.standardOutput(
            StatusView(today: runner.today, days: options.days, style: runner.style, width: width, unicode: unicode)
                .render(report))
    }
}
