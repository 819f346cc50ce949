import Foundation

extension Runner {
    /// `tracker show`: one project, by id or name, as a human view or as JSON.
    func show(_ options: ShowOptions) async throws {
        let client = try makeClient()
        let project = try await ProjectNaming(client: client).resolve(options.target)
        if options.json {
            try output.standardOutput(project.json(today: today).serialized() + "\n")
            return
        }
        let width = output.isStdoutTerminal ? output.terminalWidth : nil
        let view = ProjectView(today: today, style: style, width: width, timeZone: context.timeZone)
        try output.standardOutput(view.render(project, clientNames: await clientNames(project.clients, client: client)))
    }

    /// Names for client ids, read in one request from the template's Clients table; ids stay ids if that fails.
    private func clientNames(_ ids: [String], client: ProjectAPIClient) async -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let found = await client.linkedRecords(
            in: "Clients", primaryField: "Name",
            matching: Formula.any(ids.map(Formula.recordID(is:))))
        guard case .success(let records) = found else { return [:] }
        return Dictionary(records.compactMap { record in record.name.map { (record.id, $0) } }) { first, _ in first }
    }
}
