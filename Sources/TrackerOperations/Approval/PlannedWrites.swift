import TrackerModel
import TrackerSystem

/// One assistant call's writes as the approval policy sees them: counted while they are sent, and from the first one
/// the policy holds, planned instead (every later write of the call too), kept as one approval: a journal entry in
/// state `planned` whose changes are the diff a person approves. Given by the face for each write tool's call.
package final class PlannedWrites: Sendable {
    /// The approval the call's held writes are kept as.
    package let id: String
    private let state = Locked<(planning: Bool, touched: Int, entry: JournalEntry?)>((false, 0, nil))

    /// A new call's, with a new approval id.
    package init(id: String = JournalEntry.newApprovalID()) { self.id = id }

    /// The approval kept, once a write was held; nil when every write of the call was sent.
    package var entry: JournalEntry? { state.withLock { $0.entry } }

    /// Whether a write of `changes` is held under `policy`: always once one was; else when the policy says so. A
    /// write not held is counted towards the call's ten records.
    func holds(_ changes: [JournalEntry.Change], policy: ApprovalPolicy) -> Bool {
        state.withLock { state in
            if state.planning || policy.holds(changes, touched: state.touched) {
                state.planning = true
                return true
            }
            state.touched += changes.count
            return false
        }
    }

    /// Whether a write of `changes` would be held under `policy`, counting nothing (see `holds`).
    func wouldHold(_ changes: [JournalEntry.Change], policy: ApprovalPolicy) -> Bool {
        state.withLock { $0.planning || policy.holds(changes, touched: $0.touched) }
    }

    /// Adds a held write's changes to the approval and keeps it (a journal that cannot keep it: the call fails, and
    /// nothing is written). `undoes`: the entry an undo held for approval takes back (approved, it is marked undone).
    func keep(
        _ changes: [JournalEntry.Change], table: String, command: String, undoes: String? = nil,
        journaling: Journaling
    ) throws(AppError) {
        if changes.contains(where: { $0.kind == .attach && PlannedFile(change: $0) == nil }) {
            throw .usage(
                "attaching a file cannot wait for approval here (the file could not be kept with the plan); take \"attach\" out of \"assistants\".\"approve\" to let it through",
                command: nil)
        }
        let entry = state.withLock { state -> JournalEntry in
            var entry =
                state.entry
                ?? JournalEntry(
                    id: id, at: journaling.now(), user: journaling.user, client: journaling.client,
                    face: journaling.face, command: command, table: table, changes: [], state: .planned)
            entry.tokenPrint = journaling.tokenPrint
            entry.undoes = entry.undoes ?? undoes
            entry.approval = entry.approval ?? Approval(expires: journaling.now() + Approval.lifetime)
            entry.changes += changes.map { change in
                var change = change
                if table != entry.table { change.table = table }
                return change
            }
            state.entry = entry
            return entry
        }
        guard let store = journaling.store else {
            throw .journalUnavailable(
                "there is nowhere to keep the plan for approval (no state directory: set HOME or XDG_STATE_HOME, or a team Redis)"
            )
        }
        try store.keep(entry)
    }
}
