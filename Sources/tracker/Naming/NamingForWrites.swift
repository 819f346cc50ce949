import TrackerAPI
import TrackerModel

extension Runner {
    /// The naming rule for a command that writes: exact names, any case, never a guess acted on unasked. On a terminal
    /// the one project holding every word typed is offered (`Did you mean "Coffee packaging"? [y/N]`); off one, a
    /// guess is 66 naming it.
    func namingForWrites(_ client: ProjectAPIClient) -> ProjectNaming {
        var naming = ProjectNaming(client: client)
        guard context.isStdinTerminal && output.isStderrTerminal else { return naming }
        let (output, context) = (output, context)
        naming.confirmsGuess = { project in
            output.standardError(
                "No project has that name. Did you mean \"\(TextCells.folded(project.name ?? project.id))\"? [y/N] ")
            let answer = context.readLine()?.trimmingWhitespace().lowercased()
            return answer == "y" || answer == "yes"
        }
        return naming
    }
}
