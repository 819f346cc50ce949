import TrackerModel
import TrackerOperations

extension Changes: Command {
    /// The changes on stdout (a line each, or JSON), then the snapshot kept: a run that fails before it has shown
    /// them shows them again.
    func run(_ runner: Runner) async throws {
        let options = self
        // Said before the secrets file is read: where to remember comes first.
        guard runner.context.stateDirectory != nil else { throw Changes.nowhereToRemember }
        switch try await runner.perform(options) {
        case .forgotten:
            if runner.output.isStderrTerminal {
                runner.output.standardError("Forgot what changes had seen; the next run remembers afresh.\n")
            }
        case .remembered(let seen, let snapshot):
            if runner.output.isStderrTerminal {
                runner.output.standardError(
                    "Remembered \(seen) project\(seen == 1 ? "" : "s"); the next run shows what changed.\n")
            }
            try snapshot.keep()
        case .changed(let changes, let snapshot):
            try Changes.write(changes, as: options.format, to: runner.output)
            try snapshot.keep()
        }
    }
}

extension Changes {
    /// The changes as `format` prints them.
    static func write(_ changes: [TableChange], as format: Changes.Format, to output: Output) throws {
        guard !changes.isEmpty else { return }
        switch format {
        case .text: try output.standardOutput(changes.flatMap(\.lines).map { $0 + "\n" }.joined())
        case .json: try output.standardOutput(JSONValue.array(changes.map(\.json)).serialized() + "\n")
        case .ndjson: try output.standardOutput(changes.map { $0.json.serialized() + "\n" }.joined())
        }
    }
}
