import TrackerModel
import TrackerNetwork

/// `tracker approvals`: the assistants' writes waiting for this person (from any face, through the team's Redis or
/// this machine's state), newest first. Reads the journal only.
package struct Approvals: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "approvals", summary: "List the assistants' writes that wait for your approval.",
        usage: ["tracker approvals [--json]"],
        flags: [FlagSpec(name: "--json", help: "one JSON array of approvals, each with its diff")],
        examples: ["tracker approvals", "tracker approvals --json | jq -r '.[].id'"],
        notes: [
            "An assistant's write the approval policy holds (\"assistants\": {\"approve\": [...]}; serve's default:",
            "deletions and changes; any call of more than 10 records) is planned, not made, and waits 10 minutes.",
            "'tracker approve ID' makes it; 'tracker reject ID' drops it.",
        ])

    package var json = false

    /// Each value given.
    package init(json: Bool = false) { self.json = json }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(json: scanned.has("--json"))
    }

    package var opening: SessionOpening { .besideSchema }

    package func run(in session: Session) async throws -> [JournalEntry] {
        try await ApprovalDesk.waiting(in: session)
    }
}

/// `tracker approve ID`: makes a planned write, exactly once, under this person's token, journaled with the
/// approval's id. The records are read again first: where a field no longer holds the value the plan was shown with,
/// nothing is written, the approval is `conflicted` and shows the records as they are now (75); approving again
/// plans again.
package struct Approve: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "approve", summary: "Make an assistant's planned write (after showing it).",
        usage: ["tracker approve ID [--yes] [--json]"], positional: "ID",
        flags: [
            FlagSpec(name: "--yes", short: "-y", help: "do not ask; needed when stdin is not a terminal"),
            FlagSpec(name: "--json", help: "one object: the approval, its status and what the write came to"),
        ],
        examples: ["tracker approve aprA1b2C3d4E5f6G7h", "tracker approve --yes aprA1b2C3d4E5f6G7h --json"],
        notes: [
            "The records are read again: a field changed since the plan is shown and nothing is written (exit 75);",
            "run it again to approve the write as the records are now. Approved twice, it is made once; after its 10",
            "minutes it is expired (66). The write is journaled: 'tracker undo' takes it back.",
        ])

    package var approvalID: String
    package var confirmed = false
    package var json = false

    /// Each value given.
    package init(approvalID: String, confirmed: Bool = false, json: Bool = false) {
        (self.approvalID, self.confirmed, self.json) = (approvalID, confirmed, json)
    }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals(allowed: 1)
        guard let id = scanned.positionals.first else {
            throw AppError.usage("approve needs an approval's id ('tracker approvals' lists them)", command: "approve")
        }
        try Self.check(id, command: "approve")
        self.init(approvalID: id, confirmed: scanned.has("--yes"), json: scanned.has("--json"))
    }

    static func check(_ id: String, command: String) throws {
        guard JournalEntry.isApprovalID(id) else {
            throw AppError.usage(
                "'\(id)' is not an approval's id (apr and 14 letters and digits; see 'tracker approvals')",
                command: command)
        }
    }

    // The schema first: a create or deletion made on approval leaves out the fields Airtable computes.
    package var opening: SessionOpening { .schemaFirst }
    package var journalName: String { "approve" }

    package func run(in session: Session) async throws -> ApprovalOutcome {
        let store = try Undo.store(session)
        var entry = try await ApprovalDesk.owned(approvalID, in: session)
        let now = session.surroundings.journal.now()
        if let settled = try Self.settled(entry, at: now) { return settled }
        let (plan, seen) = try await UndoPlan.approving(entry, in: session)
        guard plan.left.isEmpty else { throw try Self.conflicted(&entry, seen: seen, left: plan.left, store: store) }
        if !confirmed {
            try session.confirmDeleting(entry.diffLines, noun: "change", command: "approve", verb: "make")
        }
        // Exactly once: under the approval's lock, looked at again, and marked applied before anything is sent, so a
        // second approval (the page and the terminal, two machines) finds it applied.
        let lock = try await session.lock([entry.id], for: "approve", doing: "making \(entry.id)")
        defer { withExtendedLifetime(lock) {} }
        if let again = try store.entry(entry.id) {
            entry = again
            if let settled = try Self.settled(entry, at: now) { return settled }
        }
        let writeID = JournalEntry.newID()
        // An undo that waited for approval takes its entry back as `tracker undo` would: that entry is marked undone
        // by this write, under its lock, before anything is sent (undone meanwhile: nothing to make).
        let undone = try await Self.markUndoing(entry.undoes, by: writeID, in: session, store: store)
        defer { withExtendedLifetime(undone?.lock) {} }
        entry.approval?.status = .applied
        entry.approval?.applied = writeID
        try store.keep(entry)
        do {
            let (made, written) = try await session.asOneEntry(
                undoing: entry.undoes, approving: entry.id, id: writeID
            ) { session in
                try await plan.apply(in: session)
            }
            var records = plan.restores.map(\.id) + plan.deletions.map(\.id) + plan.comments.map(\.record)
            records += plan.attaches.map(\.cell.recordID)
            records += made.map(\.now)
            entry.approval?.result = .object([
                ("entry", .string(or: written)), ("records", .array(records.map(JSONValue.string))),
                ("created", .array(made.map { .string($0.now) })),
            ])
            try? store.keep(entry)
            return ApprovalOutcome(entry: entry, lines: plan.lines, now: now)
        } catch let error as AppError where error.isRefusal {
            // Nothing of it was written: it may be approved again (once what Airtable refused is mended).
            entry.approval?.status = .pending
            entry.approval?.applied = nil
            try? store.keep(entry)
            if let original = undone?.entry { Undo.unmark(original, store: store) }
            throw error
        }
    }

    /// Marks the entry an approved undo takes back as undone by `writeID`, as every undo is marked (`Undo.mark`); nil
    /// when the approval is not an undo. An entry gone, or undone already: 66, nothing written.
    private static func markUndoing(
        _ undoes: String?, by writeID: String, in session: Session, store: any JournalStore
    ) async throws -> (entry: JournalEntry, lock: (any HeldLock)?)? {
        guard let undoes else { return nil }
        guard let original = try store.entry(undoes) else {
            throw AppError.notFound("the entry this undo takes back (\(undoes)) is no longer kept", hint: nil)
        }
        let marking = try await Undo.mark(original, undoneBy: writeID, in: session, store: store)
        if let undoneBy = marking.already {
            throw AppError.notFound("\(undoes) was undone meanwhile (by \(undoneBy)); nothing was written", hint: nil)
        }
        return (marking.entry, marking.lock)
    }

    /// An approval already applied (nothing more written), rejected or expired (66); nil while it waits.
    static func settled(_ entry: JournalEntry, at now: Double) throws -> ApprovalOutcome? {
        switch entry.approval?.status(at: now) ?? .expired {
        case .applied: return ApprovalOutcome(entry: entry, lines: [], now: now, already: true)
        case .rejected:
            throw AppError.notFound("\(entry.id) was rejected; nothing was written", hint: nil)
        case .expired:
            throw AppError.notFound(
                "\(entry.id) expired (a plan waits 10 minutes); nothing was written",
                hint: "Ask the assistant to plan it again.")
        case .pending, .conflicted: return nil
        }
    }

    /// Keeps the approval conflicted, its changes' before-values the records' values now (what a second look shows
    /// and a second approval compares with), and returns the failure that lists what changed.
    private static func conflicted(
        _ entry: inout JournalEntry, seen: [JournalEntry.Change], left: [String], store: any JournalStore
    ) throws -> AppError {
        entry.changes = seen
        entry.approval?.status = .conflicted
        entry.approval?.conflicts = left
        try store.keep(entry)
        return AppError.approvalConflict(id: entry.id, changes: left)
    }
}

/// `tracker reject ID`: drops a planned write; nothing is written.
package struct Reject: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "reject", summary: "Drop an assistant's planned write.", usage: ["tracker reject ID"],
        positional: "ID", flags: [FlagSpec(name: "--json", help: "one object: the approval and its status")],
        examples: ["tracker reject aprA1b2C3d4E5f6G7h"],
        notes: ["Nothing is written; the assistant asking 'approval_status' hears \"rejected\"."])

    package var approvalID: String
    package var json = false

    /// Each value given.
    package init(approvalID: String, json: Bool = false) { (self.approvalID, self.json) = (approvalID, json) }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals(allowed: 1)
        guard let id = scanned.positionals.first else {
            throw AppError.usage("reject needs an approval's id ('tracker approvals' lists them)", command: "reject")
        }
        try Approve.check(id, command: "reject")
        self.init(approvalID: id, json: scanned.has("--json"))
    }

    package var opening: SessionOpening { .besideSchema }
    package var journalName: String { "reject" }

    package func run(in session: Session) async throws -> ApprovalOutcome {
        let store = try Undo.store(session)
        var entry = try await ApprovalDesk.owned(approvalID, in: session)
        let now = session.surroundings.journal.now()
        let lock = try await session.lock([entry.id], for: "approve", doing: "rejecting \(entry.id)")
        defer { withExtendedLifetime(lock) {} }
        entry = try store.entry(entry.id) ?? entry
        switch entry.approval?.status(at: now) ?? .expired {
        case .rejected: return ApprovalOutcome(entry: entry, lines: [], now: now, already: true)
        case .applied:
            throw AppError.declined(
                "\(entry.id) was already made (as \(entry.approval?.applied ?? "an entry")); 'tracker undo \(entry.approval?.applied ?? "")' takes it back"
            )
        case .expired: throw AppError.notFound("\(entry.id) expired; nothing was written", hint: nil)
        case .pending, .conflicted:
            entry.approval?.status = .rejected
            try store.keep(entry)
            return ApprovalOutcome(entry: entry, lines: [], now: now)
        }
    }
}

/// What an approval, a rejection or a look at one came to.
package struct ApprovalOutcome: Sendable {
    package var entry: JournalEntry
    /// What was written (approve), a line a record.
    package var lines: [String]
    package var now: Double
    /// Whether it was settled before (approved or rejected already): nothing was written now.
    package var already = false

    /// The approval's status now.
    package var status: Approval.Status { entry.approval?.status(at: now) ?? .expired }

    /// `--json`'s object and the tools' answer.
    package var object: JSONValue {
        .object((entry.approvalObject(at: now).objectMembers ?? []) + [("already", .bool(already))])
    }
}

/// The `approval_status` tool: where one of this person's approvals stands.
package struct ApprovalStatus: Operation, Equatable {
    package var approvalID: String

    /// Each value given.
    package init(approvalID: String) { self.approvalID = approvalID }

    package var opening: SessionOpening { .besideSchema }
    package var journalName: String { "approval status" }

    package func run(in session: Session) async throws -> ApprovalOutcome {
        try Approve.check(approvalID, command: "approval_status")
        let entry = try await ApprovalDesk.owned(approvalID, in: session)
        return ApprovalOutcome(entry: entry, lines: [], now: session.surroundings.journal.now())
    }
}
