import TrackerAPI
import TrackerModel
import TrackerOperations

extension Clients: Command {
    func run(_ runner: Runner) async throws { try await runner.clients(self) }
}

extension Runner {
    fileprivate func clients(_ options: Clients) async throws {
        let summaries = try await perform(options)
        switch options.format ?? (output.isStdoutTerminal ? .table : .tsv) {
        case .json: try output.standardOutput(JSONValue.array(summaries.map(\.object)).serialized() + "\n")
        case .ndjson: try output.standardOutput(summaries.map { $0.object.serialized() + "\n" }.joined())
        case .tsv:
            try output.standardOutput(
                summaries.map { client in
                    [
                        client.id, TextCells.folded(client.name), String(client.open.count),
                        String(client.projects.count),
                    ]
                    .joined(separator: "\t") + "\n"
                }.joined())
        case .table:
            guard !summaries.isEmpty else { return output.standardError("No clients.\n") }
            try output.standardOutput(
                ClientTable.render(summaries, width: output.terminalWidth ?? 80, style: style))
        }
    }
}
