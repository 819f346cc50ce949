import TrackerModel
import TrackerOperations

extension Changes: Command {
    func run(_ runner: Runner) async throws { try await runner.changes(self) }
}

extension Runner {
    /// The changes on stdout (a line each, or JSON), then the snapshot kept: a run that fails before it has shown
    /// them shows them again.
    fileprivate func changes(_ options: Changes) async throws {
        // Said before the secrets file is read: where to remember comes first.
        guard context.stateDirectory != nil else { throw Changes.nowhereToRemember }
        switch try await perform(options) {
        case .forgotten:
            if output.isStderrTerminal {
                output.standardError("Forgot what changes had seen; the next run remembers afresh.\n")
            }
        case .remembered(let seen, let snapshot):
            if output.isStderrTerminal {
                output.standardError(
                    "Remembered \(seen) project\(seen == 1 ? "" : "s"); the next run shows what changed.\n")
            }
            try snapshot.keep()
        case .changed(let changes, let snapshot):
            try write(changes, as: options.format)
            try snapshot.keep()
        }
    }

    private func write(_ changes: [TableChange], as format: Changes.Format) throws {
        guard !changes.isEmpty else { return }
        switch format {
        case .text: try output.standardOutput(changes.flatMap(\.lines).map { $0 + "\n" }.joined())
        case .json: try output.standardOutput(JSONValue.array(changes.map(\.json)).serialized() + "\n")
        case .ndjson: try output.standardOutput(changes.map { $0.json.serialized() + "\n" }.joined())
        }
    }
}
