#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker comments`: the conversation on a project, oldest first.
struct Comments: Command {
    static let spec = CommandSpec(
        name: "comments", summary: "List a project's comments, oldest first.",
        usage: [
            "tracker comments ID|NAME [--limit N] [--json | --format table|tsv|json|ndjson]",
            "tracker comments --task TASK [--project PROJECT] [--limit N] [--json | --format …]",
        ],
        positional: "ID|NAME", arguments: .projects,
        flags: RecordTarget.flags + [
            FlagSpec(name: "--limit", value: "N", minimum: 1, help: "only the newest N comments"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: Format.allCases.map(\.rawValue),
                help: "table (on a terminal), tsv (piped), json or ndjson (Airtable's objects)"),
            FlagSpec(name: "--json", help: "the same as --format json"),
        ],
        examples: [
            "tracker comments \"Coffee packaging\"", "tracker comments rec3g0Xxmw2rw3scs --limit 5",
            "tracker comments \"Coffee packaging\" --format ndjson | jq -r .text",
        ],
        notes: [
            "TSV: id, createdTime, author email, text (tabs and line breaks folded). Mentions show as @Name where",
            "tracker knows the person; JSON keeps Airtable's text exactly. Needs data.recordComments:read.",
        ])

    enum Format: String, CaseIterable, Sendable {
        case table, tsv, json, ndjson
    }

    var target: RecordTarget
    var limit: Int? = nil
    var format: Format? = nil

    func run(_ runner: Runner) async throws { try await runner.comments(self) }
}

extension Comments {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(
            target: target, limit: try scanned.wholeNumber("--limit"),
            format: try scanned.formatName().flatMap(Format.init(rawValue:)))
    }
}

extension Runner {
    /// Reads every page (Airtable gives the newest first, a hundred a page) and prints them oldest first.
    fileprivate func comments(_ options: Comments) async throws {
        let base = try await prepareBase(readingBeside: true)
        // By id the comments are asked for beside the record (and the schema): one round trip. They are used only
        // once the record is found in this table.
        let byID: String? =
            if case .project(let typed) = options.target, ProjectAPIClient.looksLikeRecordID(typed) { typed } else {
                nil
            }
        async let early: Result<[RecordComment], AppError>? = {
            guard let byID else { return nil }
            return await base.client.comments(on: byID, limit: options.limit)
        }()
        let record = try await base.find(options.target, forgiving: true)
        let read =
            if let early = await early, record.id == byID {
                early
            } else {
                await base.client.comments(on: record.id, limit: options.limit, inTable: record.route)
            }
        let comments = Array(try read.get().reversed())
        _ = try await base.confirmedLayout()
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
                output.standardError("No comments on \(TextCells.folded(record.name)).\n")
                return
            }
            let view = CommentView(
                now: context.now(), zone: context.timeZone, today: today, style: style,
                width: output.terminalWidth ?? 80)
            try output.standardOutput(view.render(comments))
        }
    }
}
