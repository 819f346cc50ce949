import TrackerAPI
import TrackerModel

/// `tracker comments`: the conversation on a project, oldest first.
package struct Comments: Operation, Equatable {
    package static let spec = CommandSpec(
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

    package enum Format: String, CaseIterable, Sendable {
        case table, tsv, json, ndjson
    }

    package var target: RecordTarget
    package var limit: Int? = nil
    package var format: Format? = nil

    package var opening: SessionOpening { .besideSchema }

    /// Reads every page (Airtable gives the newest first, a hundred a page): the comments oldest first, and the
    /// record they are on.
    package func run(in session: Session) async throws -> RecordComments {
        // By id the comments are asked for beside the record (and the schema): one round trip. They are used only
        // once the record is found in this table.
        let byID: String? =
            if case .project(let typed) = target, ProjectAPIClient.looksLikeRecordID(typed) { typed } else { nil }
        let limit = limit
        async let early: Result<[RecordComment], AppError>? = {
            guard let byID else { return nil }
            return await session.client.comments(on: byID, limit: limit)
        }()
        let record = try await session.find(target, forgiving: true)
        let read =
            if let early = await early, record.id == byID {
                early
            } else {
                await session.client.comments(on: record.id, limit: limit, inTable: record.route)
            }
        return RecordComments(comments: Array(try read.get().reversed()), recordName: record.name)
    }
}

extension Comments {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(
            target: target, limit: try scanned.wholeNumber("--limit"),
            format: try scanned.formatName().flatMap(Format.init(rawValue:)))
    }
}

/// What `comments` read: the comments, oldest first, and the name of the record they are on.
package struct RecordComments: Sendable {
    package var comments: [RecordComment]
    package var recordName: String
}
