import Foundation

extension Runner {
    /// `tracker show`: one project, by id or name, as a human view or as JSON.
    func show(_ options: ShowOptions) async throws {
        let client = try makeClient()
        let project = try await ProjectNaming(client: client).resolve(options.target)
        if options.json {
            try output.standardOutput(project.json(today: today).serialized() + "\n")
        } else {
            let width = output.isStdoutTerminal ? output.terminalWidth : nil
            try output.standardOutput(ProjectView(today: today, style: style, width: width).render(project))
        }
    }
}
