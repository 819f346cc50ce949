import TrackerAPI
import TrackerModel

/// `tracker comment`: one comment on a project, never two for one command.
package struct Comment: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "comment", summary: "Add a comment to a project; @email mentions a collaborator.",
        usage: [
            "tracker comment ID|NAME TEXT [--dry-run] [--json | -q]", "tracker comment ID|NAME --file PATH|-",
            "tracker comment --task TASK [--project PROJECT] TEXT [--dry-run] [--json | -q]",
        ],
        positional: "ID|NAME", arguments: .projects,
        flags: [
            FlagSpec(name: "--file", value: "PATH", help: "read the comment from a file, or from stdin with -")
        ] + RecordTarget.flags + CommandSpec.writeFlags,
        examples: [
            "tracker comment \"Coffee packaging\" \"Proofs are in, @ana@example.com\"",
            "git log -1 --format=%B | tracker comment rec3g0Xxmw2rw3scs --file -",
        ],
        notes: [
            "Prints the comment's id. @EMAIL of a collaborator tracker knows (a lead or team member, or you) becomes",
            "Airtable's mention; any other @word is sent as typed. A comment whose answer is lost is looked for",
            "before anything is sent again. Needs the token's data.recordComments:write scope.",
        ])

    package var target: RecordTarget
    package var source: NotesSource
    package var mode = WriteMode()

    /// Each value given.
    package init(target: RecordTarget, source: NotesSource, mode: WriteMode = WriteMode()) {
        self.target = target
        self.source = source
        self.mode = mode
    }

    package var opening: SessionOpening { .besideSchema }

    /// Finds the record, turns `@email` into mentions, and posts once.
    package func run(in session: Session) async throws -> CommentOutcome {
        let typed = try Self.text(try session.readNotes(source, command: "comment", flag: "--file"))
        // Cold, the schema read and who the token is go out beside the project's read; the POST waits for the project.
        async let user: String? = mode.dryRun ? nil : session.knowledge.me()
        let record = try await session.find(target, forgiving: false)
        let text = try await withMentions(typed, session: session)
        if mode.dryRun {
            let table = record.route ?? session.configuration.table
            return .planned(
                PlannedRequest(
                    method: "POST", path: "/v0/\(session.configuration.baseID)/\(table)/\(record.id)/comments",
                    body: .object([("text", .string(text))])))
        }
        guard let me = try await user else { return .notSent }
        let comment = try await session.sendingOnce { sends in
            try await sends.addComment(text, to: record.id, by: me, inTable: record.route).get()
        }
        return .posted(comment, on: record.name)
    }

    /// The comment's text, which must hold more than white space.
    package static func text(_ typed: String?) throws -> String {
        let typed = typed ?? ""
        guard !typed.trimmingWhitespaceAndNewlines().isEmpty else {
            throw AppError.usage("the comment is empty", command: "comment")
        }
        return typed
    }
}

extension Comment {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.recordTarget(allowing: 1)
        // With --task, the text is the only word; else it follows the project.
        let named = if case .project = target { 1 } else { 0 }
        let file = try scanned.nonEmpty("--file")
        try scanned.rejectPositionals(allowed: named + (file == nil ? 1 : 0))
        let source: NotesSource
        if let file {
            source = file == "-" ? .standardInput : .file(file)
        } else if scanned.positionals.count == named + 1 {
            source = .text(scanned.positionals[named])
        } else {
            throw AppError.usage("comment needs the text, or --file PATH (- for stdin)", command: "comment")
        }
        self.init(target: target, source: source, mode: try scanned.writeMode())
    }
}

extension Comment {
    /// `text` with each `@email` of a known collaborator as Airtable's `@[usr…]`; other `@words` stay as typed.
    private func withMentions(_ text: String, session: Session) async throws -> String {
        let emails = CommentText.mentionedEmails(in: text)
        guard !emails.isEmpty else { return text }
        var ids: [String: String] = [:]
        for email in emails {
            if let id = session.knowledge.person(named: email)?["id"]?.stringValue { ids[email] = id }
        }
        let missing = emails.filter { ids[$0] == nil }
        if !missing.isEmpty {
            // The table's leads and teams are who tracker can know by email: one listing of those two fields.
            let fields = [session.layout.fields[.lead], session.layout.fields[.team]].compactMap { $0 }
            var people: [String: JSONValue] = [:]
            try await session.reader.listProjects(ListQuery(fields: session.layout.table == nil ? nil : fields)) {
                page in
                for person in page.flatMap({ [$0.lead].compactMap { $0 } + $0.team }) {
                    guard let email = person.email?.lowercased(), let id = person.id, missing.contains(email) else {
                        continue
                    }
                    ids[email] = id
                    people[email] = .object([("id", .string(id)), ("email", .string(email))])
                }
            }
            session.knowledge.remember(people: people)
        }
        return CommentText.replacingMentions(in: text, ids: ids)
    }
}

/// What `comment` came to: the request a dry run would send, the comment posted, or nothing when the token's user could
/// not be told.
package enum CommentOutcome: Sendable {
    case planned(PlannedRequest)
    case posted(RecordComment, on: String)
    case notSent
}

/// Mentions in comment text: `@email` typed, `@[usr…]` as Airtable keeps them.
package enum CommentText {
    /// The email addresses typed after an `@` (lower-cased), in order, once each.
    package static func mentionedEmails(in text: String) -> [String] {
        var found: [String] = []
        for word in mentionWords(text) where !found.contains(word.email) { found.append(word.email) }
        return found
    }

    /// `@email` → `@[usr…]` for the emails in `ids`.
    package static func replacingMentions(in text: String, ids: [String: String]) -> String {
        var result = ""
        var last = text.startIndex
        for word in mentionWords(text) {
            guard let id = ids[word.email] else { continue }
            result += text[last..<word.range.lowerBound] + "@[\(id)]"
            last = word.range.upperBound
        }
        return result + text[last...]
    }

    /// `@[usr…]` → `@Name` where `names` knows the user.
    package static func showingMentions(in text: String, names: [String: String]) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.firstRange(of: "@[usr"), let end = rest[start.upperBound...].firstIndex(of: "]") {
            let id = "usr" + rest[start.upperBound..<end]
            result += rest[..<start.lowerBound] + (names[String(id)].map { "@" + $0 } ?? "@[\(id)]")
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    /// Each `@` followed by an email address (ending before trailing punctuation).
    private static func mentionWords(_ text: String) -> [(email: String, range: Range<String.Index>)] {
        var words: [(String, Range<String.Index>)] = []
        var index = text.startIndex
        while let at = text[index...].firstIndex(of: "@") {
            let start = text.index(after: at)
            var end = text[start...].firstIndex { $0.isWhitespace || ",;()<>[]\"'".contains($0) } ?? text.endIndex
            while end > start, ".:!?".contains(text[text.index(before: end)]) { end = text.index(before: end) }
            let candidate = String(text[start..<end])
            if FieldInput.isEmail(candidate) { words.append((candidate.lowercased(), at..<end)) }
            index = end > start ? end : start
        }
        return words
    }
}
