import TrackerModel
import TrackerOperations

extension Usage: Command {
    /// The month's count as lines for a person, or `--json`'s one object for a cron job.
    func run(_ runner: Runner) async throws {
        let report = try await runner.perform(self)
        if json {
            try runner.output.standardOutput(report.object.serialized() + "\n")
        } else {
            try runner.output.standardOutput(report.lines.map { StandardErrorText.safe($0) + "\n" }.joined())
        }
    }
}
