#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension Timeline: Command {
    func run(_ runner: Runner) async throws { try await runner.timeline(self) }
}

extension Runner {
    /// Reads every open project with a due date (one listing), then draws them at once: the name column is as wide
    /// as the longest name that fits.
    fileprivate func timeline(_ options: Timeline) async throws {
        let projects = try await perform(options)
        let chart = TimelineChart(
            today: today, weeks: options.weeks, width: output.terminalWidth ?? 80,
            glyphs: .for(isTerminal: output.isStdoutTerminal, environment: context.environment),
            style: style)
        let text = chart.render(projects)
        if text.isEmpty {
            if output.isStderrTerminal { output.standardError("No open projects with a due date.\n") }
            return
        }
        try output.standardOutput(text)
    }
}
