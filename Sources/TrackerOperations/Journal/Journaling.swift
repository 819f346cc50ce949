import TrackerModel
import TrackerSystem

/// The journal as a face's sessions write to it: where it is kept, whether a write may go on without it, and who
/// writes (the face, the person, the assistant's client). Set once by the workspace; the command or tool is the
/// operation's, set when it runs.
package struct Journaling: Sendable {
    /// Where entries are kept; nil when there is nowhere (no state directory, no team Redis).
    package var store: (any JournalStore)?
    /// `"journal": "best-effort"`: a journal that cannot keep an entry is said, and the write goes on.
    package var bestEffort = false
    /// `cli`, `board`, `mcp`, `serve`.
    package var face = "cli"
    /// Airtable's id of the person writing, when the face knows it (serve's signed-in person); else the token's own,
    /// remembered with the schema.
    package var user: String? = nil
    /// The assistant's client (serve's signed-in client, the name an `mcp` client gave).
    package var client: String? = nil
    /// The token's fingerprint (never the token): whose entries are "mine" without asking Airtable who the token is.
    package var tokenPrint: String? = nil
    /// The command or tool, when the face names it (a tool's name); else the operation's.
    package var command: String? = nil
    package var now: @Sendable () -> Double
    /// Which assistant writes wait for a person (the configuration's, else the face's default).
    package var approvals = ApprovalPolicy.stdio
    /// The call's writes as the approval policy sees them; nil where no write waits (the command line, the board).
    package var planned: PlannedWrites? = nil
    package var warn: @Sendable (_ line: String) -> Void = { _ in }

    /// Each value without a default given.
    package init(store: (any JournalStore)?, now: @escaping @Sendable () -> Double) {
        (self.store, self.now) = (store, now)
    }

    /// A token's fingerprint: 16 hex digits of an HMAC, which says whether two entries were written with one token
    /// and nothing about the token.
    package static func fingerprint(_ token: String) -> String {
        "tok" + String(Digest.hmacSHA256Hex(key: "tracker journal", token).prefix(16))
    }

    /// Whether `entry` is this writer's: the same person, or (where the person is not known) the same token.
    package func wrote(_ entry: JournalEntry, me: String?) -> Bool {
        if let me, entry.user == me { return true }
        return tokenPrint != nil && entry.tokenPrint == tokenPrint
    }

    /// Whether writes are journaled at all: off only where no face set it up (the unit tests' sessions).
    package var isOn = true

    /// No journal at all (the unit tests' sessions, which write through a stub).
    package static let none: Journaling = {
        var off = Journaling(store: nil, now: { 0 })
        off.isOn = false
        return off
    }()
}

/// One write's entry while the write is made: opened (its before-values kept) before anything is sent, told each
/// batch Airtable answered, and kept once more when the write is over. Made by the session's write routes alone.
final class JournalRecorder: Sendable {
    private let journaling: Journaling
    private let command: String
    private let undoes: String?
    private let approved: String?
    private let id: String
    /// The entry, the ids Airtable answered for, and whether the journal was given up on (best effort).
    private let state = Locked<(entry: JournalEntry?, answered: Set<Int>, skipped: Bool, planning: Bool)>(
        (nil, [], false, false))

    init(
        _ journaling: Journaling, command: String, undoes: String? = nil, approved: String? = nil,
        id: String = JournalEntry.newID()
    ) {
        (self.journaling, self.command, self.undoes, self.id) = (journaling, journaling.command ?? command, undoes, id)
        self.approved = approved
    }

    /// Opens the entry with these changes (or adds them to the one open), and keeps it before the write is sent:
    /// when it cannot be kept the write is not sent (unless best effort). Returns the index of the first change added.
    @discardableResult
    func plan(_ changes: [JournalEntry.Change], user: String?, table: String) throws -> Int {
        // An assistant's write the approval policy holds: kept as the call's plan, and not sent.
        if let planned = journaling.planned, planned.holds(changes, policy: journaling.approvals) {
            try planned.keep(changes, table: table, command: command, undoes: undoes, journaling: journaling)
            state.withLock { $0.planning = true }
            return 0
        }
        let (entry, first) = state.withLock { state -> (JournalEntry?, Int) in
            if state.skipped { return (nil, 0) }
            var entry =
                state.entry
                ?? JournalEntry(
                    id: id, at: journaling.now(), user: journaling.user ?? user, client: journaling.client,
                    face: journaling.face, command: command, table: table, changes: [])
            entry.tokenPrint = journaling.tokenPrint
            if entry.changes.isEmpty { (entry.undoes, entry.approved) = (undoes, approved) }
            let first = entry.changes.count
            // A change to another table than the entry's first (an undo linking tasks back) names its table.
            entry.changes += changes.map { change in
                var change = change
                if table != entry.table { change.table = table }
                return change
            }
            if entry.user == nil { entry.user = journaling.user ?? user }
            state.entry = entry
            return (entry, first)
        }
        guard let entry else { return first }
        do throws(AppError) {
            guard let store = journaling.store else {
                throw .journalUnavailable(
                    "there is nowhere to keep it (no state directory: set HOME or XDG_STATE_HOME, or a team Redis)")
            }
            try store.keep(entry)
        } catch {
            guard journaling.bestEffort else {
                state.withLock { $0.entry = nil }
                throw error
            }
            journaling.warn("\(error.message); writing anyway (\"journal\": \"best-effort\"), not undoable")
            state.withLock { $0.skipped = true }
        }
        return first
    }

    /// Whether a write of `changes` will be held for approval (planned, not sent).
    func willHold(_ changes: [JournalEntry.Change]) -> Bool {
        journaling.planned?.wouldHold(changes, policy: journaling.approvals) ?? false
    }

    /// Whether the write was held for approval: the route then sends nothing (`AppError.writePlanned`).
    var isPlanning: Bool { state.withLock { $0.planning } }

    /// Throws `writePlanned` when the write was held for approval, so the route sends nothing.
    func proceed() throws(AppError) { if isPlanning { throw .writePlanned } }

    /// Airtable answered for the change at `index` (its id, for a create).
    func answered(_ index: Int, id: String? = nil, after: [(String, JSONValue)]? = nil) {
        state.withLock { state in
            guard state.entry != nil, index < state.entry!.changes.count else { return }
            state.answered.insert(index)
            if let id { state.entry!.changes[index].id = id }
            if let after { state.entry!.changes[index].after = after }
        }
    }

    /// The entry as it stands, for the write's outcome (its id).
    var entryID: String? { state.withLock { $0.entry?.id } }

    /// Keeps the entry's last state once the write is over: completed when Airtable answered for every change,
    /// refused when it answered none and refused the write, else left opened (what a lost answer leaves: undo looks
    /// at the record). A change never answered whose write was refused is dropped.
    func finish(failure: Error?, user: String?) {
        let entry = state.withLock { state -> JournalEntry? in
            guard var entry = state.entry, !state.skipped else { return nil }
            if entry.user == nil { entry.user = user }
            let all = Set(entry.changes.indices)
            if failure == nil || state.answered == all {
                entry.state = .completed
            } else if state.answered.isEmpty, let error = failure as? AppError, error.isRefusal {
                entry.state = .refused
            } else if let error = failure as? AppError, error.isRefusal {
                entry.changes = entry.changes.enumerated().filter { state.answered.contains($0.offset) }.map(\.element)
                entry.state = .completed
            }
            state.entry = entry
            return entry
        }
        guard let entry, let store = journaling.store else { return }
        do {
            try store.keep(entry)
        } catch {
            journaling.warn("the write was made, but \(error.message.lowercased()) (its entry stays open)")
        }
    }
}

extension AppError {
    /// Whether Airtable (or tracker before sending) refused the write: nothing of it was applied.
    var isRefusal: Bool {
        switch self {
        case .http(let status, _): (400..<500).contains(status) && status != 408 && status != 429
        case .usage, .notFound, .journalUnavailable, .missingField, .tableAccessDenied, .scopeMissing, .declined,
            .writePlanned, .approvalConflict:
            true
        default: false
        }
    }
}
