import TrackerAPI
import TrackerModel
import TrackerOperations

extension Runner {
    /// The naming rule for a command that writes: exact names, any case, never a guess acted on unasked. On a terminal
    /// the one project holding every word typed is offered (`Did you mean "Coffee packaging"? [y/N]`); off one, a
    /// guess is 66 naming it.
    func namingForWrites(_ client: ProjectAPIClient) -> ProjectNaming {
        var naming = ProjectNaming(client: client)
        if let ask = guessQuestion("project") { naming.confirmsGuess = { ask($0.name ?? $0.id) } }
        return naming
    }

    /// On a terminal, the question a write asks about the one `noun` whose name holds every word typed: true only for
    /// a yes. Nil off a terminal, where a guess is 66.
    func guessQuestion(_ noun: String) -> (@Sendable (String) -> Bool)? {
        guard context.isStdinTerminal && output.isStderrTerminal else { return nil }
        let (output, context) = (output, context)
        return { name in
            output.standardError("No \(noun) has that name. Did you mean \"\(TextCells.folded(name))\"? [y/N] ")
            let answer = context.readLine()?.trimmingWhitespace().lowercased()
            return answer == "y" || answer == "yes"
        }
    }
}
