#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Approvals: Command {
    /// Each approval waiting: its id, how long it still waits, the tool and client, then its diff indented; piped, one
    /// approval a line, tab-separated (id, status, expires in UTC, tool, client, records); `--json`, one array.
    func run(_ runner: Runner) async throws {
        let waiting = try await runner.perform(self)
        let now = runner.context.now().timeIntervalSince1970
        if json {
            return try runner.output.standardOutput(
                JSONValue.array(waiting.map { $0.approvalObject(at: now) }).serialized() + "\n")
        }
        guard runner.output.isStdoutTerminal else {
            return try runner.output.standardOutput(
                waiting.map { entry in
                    [
                        entry.id, entry.approval?.status(at: now).rawValue ?? "expired",
                        ISOInstant.text(Date(timeIntervalSince1970: entry.approval?.expires ?? now)), entry.command,
                        entry.client ?? "", String(entry.recordCount),
                    ].map(TextCells.folded).joined(separator: "\t") + "\n"
                }.joined())
        }
        guard !waiting.isEmpty else { return runner.output.standardError("Nothing waits for your approval.\n") }
        var text = ""
        for entry in waiting {
            text += runner.style.bold(entry.id) + "  " + entry.approvalSummary(at: now).joined(separator: ", ") + "\n"
            text += entry.diffLines.map { "  " + TextCells.folded($0) + "\n" }.joined()
        }
        text += "Approve with 'tracker approve ID', or drop with 'tracker reject ID'.\n"
        try runner.output.standardOutput(text)
    }
}

extension Approve: Command {
    /// What was written, a line a record (the approval already made: one line, nothing written); `--json`, the
    /// approval with its status and result. Changed since the plan: the failure lists what (75).
    func run(_ runner: Runner) async throws {
        let outcome = try await runner.perform(self)
        if json { return try runner.output.standardOutput(outcome.object.serialized() + "\n") }
        let entry = outcome.entry
        if outcome.already {
            return try runner.output.standardOutput(
                "\(entry.id) was already made (as \(entry.approval?.applied ?? "an entry")); nothing written.\n")
        }
        var text =
            "Made \(entry.id)"
            + (entry.approval?.applied.map { " (as \($0); 'tracker undo \($0)' takes it back)" } ?? "") + ":\n"
        text += outcome.lines.map { "  " + TextCells.folded($0) + "\n" }.joined()
        try runner.output.standardOutput(text)
    }
}

extension Reject: Command {
    /// One line: rejected, or rejected already.
    func run(_ runner: Runner) async throws {
        let outcome = try await runner.perform(self)
        if json { return try runner.output.standardOutput(outcome.object.serialized() + "\n") }
        let line =
            outcome.already
            ? "\(outcome.entry.id) was already rejected; nothing written."
            : "Rejected \(outcome.entry.id); nothing written."
        try runner.output.standardOutput(line + "\n")
    }
}
