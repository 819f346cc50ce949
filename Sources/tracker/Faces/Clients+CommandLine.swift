import TrackerModel
import TrackerOperations

extension Clients: Command {
    func run(_ runner: Runner) async throws {
        let options = self
        let summaries = try await runner.perform(options)
        switch options.format ?? (runner.output.isStdoutTerminal ? .table : .tsv) {
        case .json: try runner.output.standardOutput(JSONValue.array(summaries.map(\.object)).serialized() + "\n")
        case .ndjson: try runner.output.standardOutput(summaries.map { $0.object.serialized() + "\n" }.joined())
        case .tsv:
            try runner.output.standardOutput(
                summaries.map { client in
                    [
                        client.id, TextCells.folded(client.name), String(client.open.count),
                        String(client.projects.count),
                    ]
                    .joined(separator: "\t") + "\n"
                }.joined())
        case .table:
            guard !summaries.isEmpty else { return runner.output.standardError("No clients.\n") }
            try runner.output.standardOutput(
                ClientTable.render(summaries, width: runner.output.terminalWidth ?? 80, style: runner.style))
        }
    }
}
