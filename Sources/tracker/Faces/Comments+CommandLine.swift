#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Comments: Command {
    /// Reads every page (Airtable gives the newest first, a hundred a page) and prints them oldest first.
    func run(_ runner: Runner) async throws {
        let options = self
        let read = try await runner.perform(options)
        let comments = read.comments
        let format = options.format ?? (runner.output.isStdoutTerminal ? .table : .tsv)
        switch format {
        case .json:
            try runner.output.standardOutput(JSONValue.array(comments.map(\.object)).serialized() + "\n")
        case .ndjson:
            try runner.output.standardOutput(comments.map { $0.object.serialized() + "\n" }.joined())
        case .tsv:
            let names = CommentView.names(comments)
            try runner.output.standardOutput(
                comments.map { comment in
                    [
                        comment.id, comment.createdTime, comment.author.email ?? "",
                        CommentView.text(comment, names: names),
                    ]
                    .map(TextCells.folded).joined(separator: "\t") + "\n"
                }.joined())
        case .table:
            guard !comments.isEmpty else {
                runner.output.standardError("No comments on \(TextCells.folded(read.recordName)).\n")
                return
            }
            let view = CommentView(
                now: runner.context.now(), zone: runner.context.timeZone, today: runner.today, style: runner.style,
                width: runner.output.terminalWidth ?? 80)
            try runner.output.standardOutput(view.render(comments))
        }
    }
}
