#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension Comments: Command {
    func run(_ runner: Runner) async throws { try await runner.comments(self) }
}

extension Runner {
    /// Reads every page (Airtable gives the newest first, a hundred a page) and prints them oldest first.
    fileprivate func comments(_ options: Comments) async throws {
        let read = try await perform(options)
        let comments = read.comments
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        switch format {
        case .json:
            try output.standardOutput(JSONValue.array(comments.map(\.object)).serialized() + "\n")
        case .ndjson:
            try output.standardOutput(comments.map { $0.object.serialized() + "\n" }.joined())
        case .tsv:
            let names = CommentView.names(comments)
            try output.standardOutput(
                comments.map { comment in
                    [
                        comment.id, comment.createdTime, comment.author.email ?? "",
                        CommentView.text(comment, names: names),
                    ]
                    .map(TextCells.folded).joined(separator: "\t") + "\n"
                }.joined())
        case .table:
            guard !comments.isEmpty else {
                output.standardError("No comments on \(TextCells.folded(read.recordName)).\n")
                return
            }
            let view = CommentView(
                now: context.now(), zone: context.timeZone, today: today, style: style,
                width: output.terminalWidth ?? 80)
            try output.standardOutput(view.render(comments))
        }
    }
}
