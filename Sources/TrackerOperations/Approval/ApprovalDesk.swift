#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// The steps every face's approval takes (the command line's `approve`, `reject` and `approvals`, serve's page, an
/// assistant's `approval_status`): the approval found only for the person it is for, and where it stands now.
enum ApprovalDesk {
    /// The approval `id`, when it is this person's; an unknown, expired-and-dropped or foreign one is not found (66):
    /// an id is not a credential.
    static func owned(_ id: String, in session: Session) async throws -> JournalEntry {
        let store = try Undo.store(session)
        guard JournalEntry.isApprovalID(id), let entry = try store.entry(id), entry.state == .planned,
            try await isMine(entry, in: session)
        else {
            throw AppError.notFound(
                "no approval \(id) waits for you (approvals wait 10 minutes)",
                hint: "Run 'tracker approvals' to see those that wait.")
        }
        return entry
    }

    /// Whether `entry` was planned for this person: the same person (serve's, or the token's user), else the same
    /// token. A `whoami` only when the entry names a person and the token is another.
    static func isMine(_ entry: JournalEntry, in session: Session) async throws -> Bool {
        let journal = session.surroundings.journal
        if journal.wrote(entry, me: journal.user ?? session.knowledge.rememberedUser) { return true }
        guard entry.user != nil, journal.user == nil else { return false }
        return journal.wrote(entry, me: try await session.knowledge.me())
    }

    /// The approvals waiting for this person (pending or conflicted, within their ten minutes), newest first.
    static func waiting(in session: Session) async throws -> [JournalEntry] {
        guard let store = session.surroundings.journal.store else { return [] }
        let now = session.surroundings.journal.now()
        let recent = try store.entries(limit: JournalBounds.entries, since: now - Approval.lifetime - 60)
        var mine: [JournalEntry] = []
        for entry in recent where entry.state == .planned {
            guard let status = entry.approval?.status(at: now), status == .pending || status == .conflicted else {
                continue
            }
            if try await isMine(entry, in: session) { mine.append(entry) }
        }
        return mine
    }
}

extension JournalEntry {
    /// A planned write's diff, a line a record: each field's value now and the value it would get, a deletion's
    /// whole row and what links to it, a create's fields, a comment's text.
    package var diffLines: [String] {
        changes.map { change in
            let id = change.id ?? "new record"
            switch change.kind {
            case .update:
                return "\(id): "
                    + change.after.map { field, after in
                        let before = change.before.first { $0.0 == field }?.1 ?? .null
                        return "\(field) \(UndoPlan.shown(before)) → \(UndoPlan.shown(after))"
                    }.joined(separator: "; ")
            case .create:
                return "\(id): "
                    + change.after.filter { !JournalCells.isEmpty($0.1) }.map { "\($0.0) \(UndoPlan.shown($0.1))" }
                    .joined(separator: "; ")
            case .delete:
                let shown = change.before.filter { !JournalCells.isEmpty($0.1) }.prefix(6).map {
                    "\($0.0) \(UndoPlan.shown($0.1))"
                }
                let links = change.links.map { "\($0.1.count) linked through \($0.0)" }
                let comments = change.comments.map { [Self.counted($0)] } ?? []
                return "\(id): delete (" + (shown + links + comments).joined(separator: "; ") + ")"
            case .comment:
                return "\(id): comment "
                    + UndoPlan.shown(change.after.first { $0.0 == "comment" }?.1 ?? .null)
            case .attach:
                return "\(id): attach \(Self.attached(change)) to \(change.after.first?.0 ?? "its field")"
            }
        }
    }

    /// The diff as a table's rows (the approval page): each field of each record, its value now (nil: none, a
    /// create's) and after (nil: the record is deleted), as a person reads them.
    package var diffRows: [(record: String, field: String, before: String?, after: String?)] {
        changes.flatMap { change -> [(record: String, field: String, before: String?, after: String?)] in
            let id = change.id ?? "new record"
            switch change.kind {
            case .update:
                return change.after.map { field, after in
                    let before = change.before.first { $0.0 == field }?.1 ?? .null
                    return (id, field, UndoPlan.shown(before), UndoPlan.shown(after))
                }
            case .create:
                return change.after.filter { !JournalCells.isEmpty($0.1) }.map { (id, $0.0, nil, UndoPlan.shown($0.1)) }
            case .delete:
                let linked =
                    change.links.map { (id, $0.0, "\($0.1.count) linked", String?.none) }
                    + (change.comments.map { [(id, "Comments", Self.counted($0), String?.none)] } ?? [])
                return change.before.filter { !JournalCells.isEmpty($0.1) && !change.links.map(\.0).contains($0.0) }
                    .map { (id, $0.0, UndoPlan.shown($0.1), nil) } + linked
            case .comment:
                return [(id, "comment", nil, UndoPlan.shown(change.after.first { $0.0 == "comment" }?.1 ?? .null))]
            case .attach:
                return [(id, change.after.first?.0 ?? "file", nil, Self.attached(change))]
            }
        }
    }

    /// A planned upload as the diff says it: the file's name and size.
    private static func attached(_ change: Change) -> String {
        guard let planned = PlannedFile(change: change) else { return "a file" }
        return "\"\(TextCells.folded(planned.file.filename))\" (\(ByteCount.text(planned.file.size)))"
    }

    /// A deletion's comments as the diff says them (a hundred: read no further).
    private static func counted(_ comments: Int) -> String {
        comments >= 100 ? "100 or more comments" : comments == 1 ? "1 comment" : "\(comments) comments"
    }

    /// An approval as a list of them says it (`tracker approvals`, the board's `a`): its tool and who asked, how many
    /// records, the minutes left, and whether it changed since and needs another look.
    package func approvalSummary(at now: Double) -> [String] {
        let minutes = max(0, Int(((approval?.expires ?? now) - now) / 60))
        var parts = [
            TextCells.folded(command + (client.map { " by \($0)" } ?? "")),
            "\(recordCount) record\(recordCount == 1 ? "" : "s")", "\(minutes) min left",
        ]
        if approval?.status(at: now) == .conflicted { parts.append("changed since: look again") }
        return parts
    }

    /// An approval as `approvals --json`, the `approval_status` tool and an assistant's `approval_needed` give it.
    package func approvalObject(at now: Double, url: String? = nil) -> JSONValue {
        let status = approval?.status(at: now) ?? .expired
        var members: [(String, JSONValue)] = [
            ("id", .string(id)), ("status", .string(status.rawValue)), ("tool", .string(command)),
            ("face", .string(face)), ("client", .string(or: client)),
            ("expires", .string(ISOInstant.text(Date(timeIntervalSince1970: approval?.expires ?? at)))),
            ("records", .number(Double(changes.count))),
            ("diff", .string(diffLines.joined(separator: "\n"))),
        ]
        if let url { members.append(("approvalUrl", .string(url))) }
        if let result = approval?.result { members.append(("result", result)) }
        if let conflicts = approval?.conflicts, !conflicts.isEmpty, status == .conflicted {
            members.append(("conflicts", .array(conflicts.map(JSONValue.string))))
        }
        return .object(members)
    }
}
