#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Timeline: Command {
    /// Reads every open project with a due date (one listing), then draws them at once: the name column is as wide
    /// as the longest name that fits.
    func run(_ runner: Runner) async throws {
        let options = self
        let projects = try await runner.perform(options)
        let chart = TimelineChart(
            today: runner.today, weeks: options.weeks, width: runner.output.terminalWidth ?? 80,
            glyphs: .for(isTerminal: runner.output.isStdoutTerminal, environment: runner.context.environment),
            style: runner.style)
        let text = chart.render(projects)
        if text.isEmpty {
            if runner.output.isStderrTerminal { runner.output.standardError("No open projects with a due date.\n") }
            return
        }
        try runner.output.standardOutput(text)
    }
}
