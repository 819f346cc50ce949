import TrackerAPI
import TrackerModel
import TrackerNetwork

/// `tracker undo`: takes back one journal entry. Fields go back where they still hold what the entry set (one changed
/// since is left alone and named: an undo never writes over a change it did not make); a create is deleted; a
/// deletion is made again (a new record with the old fields and links). An undo is a write like any: journaled (as
/// one entry that names the one it undoes), paced, exactly once (under the entry's lock, marked before it is sent),
/// and undoable.
package struct Undo: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "undo", summary: "Take back a write tracker made (the newest of yours, or the one named).",
        usage: ["tracker undo [ID] [--dry-run] [--yes] [--json]"], positional: "ID",
        flags: [
            FlagSpec(name: "--yes", short: "-y", help: "do not ask; needed when stdin is not a terminal"),
            FlagSpec(name: "--dry-run", help: "say what it would do and send nothing"),
            FlagSpec(name: "--json", help: "one object: what was restored, deleted, made again and left alone"),
        ],
        examples: [
            "tracker undo", "tracker undo wrtA1b2C3d4E5f6G7h --dry-run", "tracker undo --yes wrtA1b2C3d4E5f6G7h",
        ],
        notes: [
            "ID is a journal entry's id ('tracker history'); without one, the newest entry you wrote. Fields go back",
            "where they still hold what the entry set; a field changed since is left alone and named (exit 75). A",
            "deleted record is made again with its fields and links under a new id; its comments and revision history",
            "do not come back (Airtable's trash keeps the original 7 days). An entry already undone: nothing written.",
        ])

    package var entryID: String?
    /// The board's `u`: the newest entry that touched this record.
    package var touching: String? = nil
    package var dryRun = false
    package var confirmed = false
    package var json = false

    /// Each value given.
    package init(
        entryID: String? = nil, touching: String? = nil, dryRun: Bool = false, confirmed: Bool = false,
        json: Bool = false
    ) {
        (self.entryID, self.touching, self.dryRun, self.confirmed, self.json) =
            (entryID, touching, dryRun, confirmed, json)
    }

    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals(allowed: 1)
        let id = scanned.positionals.first
        if let id, !JournalEntry.isID(id) {
            throw AppError.usage(
                "'\(id)' is not a journal entry's id (wrt and 14 letters and digits; see 'tracker history')",
                command: "undo")
        }
        self.init(
            entryID: id, dryRun: scanned.has("--dry-run"), confirmed: scanned.has("--yes"), json: scanned.has("--json"))
    }

    // The schema first: a deletion made again leaves out the fields Airtable computes.
    package var opening: SessionOpening { .schemaFirst }

    package func run(in session: Session) async throws -> UndoOutcome {
        let store = try Self.store(session)
        var entry = try await find(in: store, session: session)
        if let undoneBy = entry.undoneBy { return UndoOutcome(entry: entry, already: undoneBy) }
        if entry.state == .refused { return UndoOutcome(entry: entry, already: nil) }
        var plan = try await UndoPlan.make(entry, in: session)
        if dryRun || plan.isEmpty { return UndoOutcome(entry: entry, plan: plan, written: false) }
        if !confirmed {
            try session.confirmDeleting(plan.lines, noun: "change", command: "undo", verb: "undo")
        }
        let undoID = JournalEntry.newID()
        let marking = try await Self.mark(entry, undoneBy: undoID, in: session, store: store)
        defer { withExtendedLifetime(marking.lock) {} }
        if let undoneBy = marking.already { return UndoOutcome(entry: marking.entry, already: undoneBy) }
        entry = marking.entry
        do {
            let (made, written) = try await session.asOneEntry(undoing: entry.id, id: undoID) { session in
                try await plan.apply(in: session)
            }
            plan.madeAgain = made
            return UndoOutcome(entry: entry, plan: plan, written: true, undoEntry: written)
        } catch let error as AppError where error.isRefusal {
            // Nothing of it was written: the entry may be undone later.
            Self.unmark(entry, store: store)
            throw error
        }
    }

    /// Exactly once, for every undo (`tracker undo`, the board's `u`, the tool, an approved undo): under the entry's
    /// lock, looked at again, and marked undone by `undoID` before anything is sent, so a second undo (here or on
    /// another machine) finds it marked. Returns the entry as marked and the lock to hold while the undo is written;
    /// `already`: the undo that took it back first (nothing was marked).
    static func mark(_ entry: JournalEntry, undoneBy undoID: String, in session: Session, store: any JournalStore)
        async throws -> (entry: JournalEntry, lock: (any HeldLock)?, already: String?)
    {
        let lock = try await session.lock([entry.id], for: "undo", doing: "undoing \(entry.id)")
        var marked = try store.entry(entry.id) ?? entry
        if let undoneBy = marked.undoneBy { return (marked, lock, undoneBy) }
        marked.undoneBy = undoID
        try store.keep(marked)
        return (marked, lock, nil)
    }

    /// Takes the mark back from an entry whose undo wrote nothing (Airtable refused it): it may be undone later.
    static func unmark(_ entry: JournalEntry, store: any JournalStore) {
        var entry = entry
        entry.undoneBy = nil
        try? store.keep(entry)
    }

    static func store(_ session: Session) throws -> any JournalStore {
        guard let store = session.surroundings.journal.store else {
            throw AppError.journalUnavailable(
                "there is no journal here (no state directory: set HOME or XDG_STATE_HOME, or a team Redis)")
        }
        return store
    }

    /// The entry named, or the newest this person wrote that is not itself an undo.
    private func find(in store: any JournalStore, session: Session) async throws -> JournalEntry {
        if let entryID {
            guard let entry = try store.entry(entryID) else {
                throw AppError.notFound(
                    "no journal entry \(entryID) (entries are kept 30 days)", hint: "Run 'tracker history' to see them."
                )
            }
            return entry
        }
        let entries = try store.entries(limit: JournalBounds.entries, since: nil).filter { $0.state != .planned }
        if let touching {
            guard
                let newest = entries.first(where: { entry in
                    entry.state != .refused && entry.changes.contains { $0.id == touching }
                })
            else { throw AppError.notFound("the journal holds no write to this project", hint: nil) }
            return newest
        }
        let journal = session.surroundings.journal
        let me = journal.user ?? session.knowledge.rememberedUser
        guard
            let newest = entries.first(where: { journal.wrote($0, me: me) && $0.undoes == nil && $0.state != .refused })
        else {
            throw AppError.notFound("the journal holds nothing you wrote to undo", hint: "Run 'tracker history'.")
        }
        return newest
    }
}

/// What an undo came to.
package struct UndoOutcome: Sendable {
    package var entry: JournalEntry
    /// The entry that undid it before (nil with `plan` nil: the entry was refused, nothing to undo).
    package var alreadyUndoneBy: String? = nil
    package var plan: UndoPlan? = nil
    /// Whether the plan was carried out (false: `--dry-run`, or nothing to do).
    package var written = false
    /// The undo's own journal entry.
    package var undoEntry: String? = nil

    init(entry: JournalEntry, already: String?) { (self.entry, self.alreadyUndoneBy) = (entry, already) }

    init(entry: JournalEntry, plan: UndoPlan, written: Bool, undoEntry: String? = nil) {
        (self.entry, self.plan, self.written, self.undoEntry) = (entry, plan, written, undoEntry)
    }

    /// `--json`'s object.
    package var object: JSONValue {
        var members: [(String, JSONValue)] = [
            ("entry", .string(entry.id)), ("undoEntry", .string(or: undoEntry)), ("written", .bool(written)),
            ("alreadyUndoneBy", .string(or: alreadyUndoneBy)),
        ]
        if let plan { members += plan.object }
        return .object(members)
    }
}
