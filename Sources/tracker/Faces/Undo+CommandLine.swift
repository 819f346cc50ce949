import TrackerModel
import TrackerOperations

extension Undo: Command {
    /// What was put back, deleted and made again, a line each (the new ids named); `--dry-run`, what would be; what
    /// was left alone is the failure's list (75).
    func run(_ runner: Runner) async throws {
        let outcome = try await runner.perform(self)
        if json { try runner.output.standardOutput(outcome.object.serialized() + "\n") }
        guard let plan = outcome.plan else {
            if json { return }
            let line =
                outcome.alreadyUndoneBy.map { "\(outcome.entry.id) was already undone (by \($0)); nothing written." }
                ?? "\(outcome.entry.id) wrote nothing (Airtable refused it); nothing to undo."
            return try runner.output.standardOutput(line + "\n")
        }
        if !json {
            var text = ""
            if plan.isEmpty {
                text = "Nothing of \(outcome.entry.id) to put back.\n"
            } else if !outcome.written {
                text = "Would undo \(outcome.entry.id) (sending nothing):\n" + plan.lines.map { "  \($0)\n" }.joined()
            } else {
                text = "Undid \(outcome.entry.id)" + (outcome.undoEntry.map { " (as \($0))" } ?? "") + ":\n"
                text += plan.lines.map { "  \($0)\n" }.joined()
                for made in plan.madeAgain { text += "  \(made.was) is now \(made.now)\n" }
                if !plan.madeAgain.isEmpty {
                    text +=
                        "  Comments and revision history do not come back: Airtable's trash keeps the original 7 days.\n"
                }
            }
            try runner.output.standardOutput(text)
        }
        if !plan.left.isEmpty { throw AppError.undoIncomplete(entry: outcome.entry.id, left: plan.left) }
    }
}
