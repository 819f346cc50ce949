import TrackerModel
import TrackerOperations

extension Runner {
    /// Shows what will be deleted (a line a record) and asks `[y/N]` on a terminal; without one, `--yes` is required.
    /// `command` is how the message names the command typed (`delete`, `task delete`).
    /// `verb` is what is done (`remove` files `from` a project).
    func confirmDeleting(_ lines: [String], noun: String, command: String, verb: String = "delete", from: String? = nil)
        throws
    {
        let past = verb == "delete" ? "deleted" : "\(verb)d"
        guard context.isStdinTerminal else { throw Session.cannotAsk(command: command, verb: verb) }
        var text =
            "This \(verb)s \(lines.count) \(noun)\(lines.count == 1 ? "" : "s")\(from.map { " from \($0)" } ?? ""):\n"
        for line in lines { text += "  \(line)\n" }
        output.standardError(
            text + "\(verb.firstLetterUppercased) \(lines.count == 1 ? "it" : "them")? [y/N] ")
        let answer = context.readLine()?.trimmingWhitespace().lowercased()
        guard answer == "y" || answer == "yes" else { throw AppError.declined("nothing was \(past)") }
    }
}
