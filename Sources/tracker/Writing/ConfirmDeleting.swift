import TrackerModel

extension Runner {
    /// Shows what will be deleted (a line a record) and asks `[y/N]` on a terminal; without one, `--yes` is required.
    /// `command` is how the message names the command typed (`delete`, `task delete`).
    func confirmDeleting(_ lines: [String], noun: String, command: String) throws {
        guard context.isStdinTerminal else {
            throw AppError.usage(
                "\(command) asks before deleting, and stdin is not a terminal; pass --yes to delete without asking (nothing was deleted)",
                command: String(command.prefix { $0 != " " }))
        }
        var text = "This deletes \(lines.count) \(noun)\(lines.count == 1 ? "" : "s"):\n"
        for line in lines { text += "  \(line)\n" }
        output.standardError(text + "Delete \(lines.count == 1 ? "it" : "them")? [y/N] ")
        let answer = context.readLine()?.trimmingWhitespace().lowercased()
        guard answer == "y" || answer == "yes" else { throw AppError.declined("nothing was deleted") }
    }
}
