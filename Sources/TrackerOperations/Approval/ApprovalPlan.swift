import TrackerAPI
import TrackerModel
import TrackerSystem

/// What approving a planned write would do now: worked out from the records as Airtable holds them at the moment of
/// approval, the way an undo is (`UndoPlan`), forwards. A field goes to its new value only while it still holds the
/// value the person was shown; a record to delete only while none of its fields changed. Anything else is a change the
/// person has not seen: nothing is written, and the plan is shown again with the records as they are.
extension UndoPlan {
    /// The plan for approving `entry`, and the entry's changes with their before-values as the records are now (what
    /// a second look shows, when something changed since).
    static func approving(_ entry: JournalEntry, in session: Session) async throws -> (
        UndoPlan, seenNow: [JournalEntry.Change]
    ) {
        var plan = UndoPlan()
        plan.command = "approve"
        var seen: [JournalEntry.Change] = []
        for (change, table) in try await plan.readNow(entry, in: session) {
            guard let table else {
                plan.left.append("a record of \(change.table ?? entry.table), a table tracker does not write")
                seen.append(change)
                continue
            }
            seen.append(plan.ahead(change, in: table, entry: entry, session: session))
        }
        return (plan, seen)
    }

    /// Adds what approving `change` writes; returns the change with its before-values as the record is now.
    private mutating func ahead(
        _ change: JournalEntry.Change, in table: Table, entry: JournalEntry, session: Session
    ) -> JournalEntry.Change {
        var seen = change
        switch change.kind {
        case .update:
            guard let id = change.id else { return seen }
            guard exists(id, in: table) else {
                left.append("\(id) was deleted since")
                return seen
            }
            var cells: [(String, JSONValue)] = []
            seen.before = []
            for (field, after) in change.after {
                let before = change.before.first { $0.0 == field }?.1 ?? .null
                let now = (current(id, field, in: table, session: session) ?? nil) ?? .null
                seen.before.append((field, now))
                if JournalCells.same(now, before) {
                    if !JournalCells.same(now, after) { cells.append((field, JournalCells.writable(after))) }
                } else if !JournalCells.same(now, after) {
                    left.append("\(id): \"\(field)\" is now \(Self.shown(now)) (the plan saw \(Self.shown(before)))")
                }
            }
            guard !cells.isEmpty else { return seen }
            restores.append(Restore(id: id, table: table, cells: cells))
            lines.append("\(id): " + cells.map { "\($0.0) to \(Self.shown($0.1))" }.joined(separator: ", "))
        case .create:
            remakes.append(Remake(was: "a new record", table: table, cells: change.after))
            let name = change.after.first { $0.0 == Self.nameField(table, session) }?.1.stringValue
            lines.append("make \(name.map { "\"\($0)\"" } ?? "a record")")
        case .delete:
            guard let id = change.id, exists(id, in: table) else { return seen }
            let writable = Set(Self.writable(change.before, in: table, session: session).map(\.0))
            var row: [(String, JSONValue)] = []
            for (field, before) in change.before where writable.contains(field) {
                let now = (current(id, field, in: table, session: session) ?? nil) ?? .null
                row.append((field, now))
                if !JournalCells.same(now, before) {
                    left.append("\(id): \"\(field)\" is now \(Self.shown(now)) (the plan saw \(Self.shown(before)))")
                }
            }
            seen.before = change.before.map { field, value in (field, row.first { $0.0 == field }?.1 ?? value) }
            deletions.append((id, table))
            lines.append("\(id): delete it")
        case .comment:
            guard let id = change.id, let text = change.after.first(where: { $0.0 == "comment" })?.1.stringValue
            else { return seen }
            comments.append((id, change.table ?? entry.table, text))
            lines.append("\(id): comment \(Self.shown(.string(text)))")
        case .attach:
            guard let id = change.id, let field = change.after.first?.0, let planned = PlannedFile(change: change)
            else {
                left.append("a file to attach that the plan did not keep")
                return seen
            }
            guard exists(id, in: table) else {
                left.append("\(id) was deleted since")
                return seen
            }
            let name = TextCells.folded(planned.file.filename)
            // The bytes the person approves are the bytes sent: a file changed or replaced since is never uploaded.
            guard planned.isUnchanged else {
                left.append(
                    "\(id): the file \"\(name)\" is not what was planned (changed, moved, or on another machine), so it is not sent"
                )
                return seen
            }
            attaches.append(
                (
                    AttachmentCell(table: change.table ?? entry.table, recordID: id, field: field, fieldID: nil),
                    planned.file
                ))
            lines.append("\(id): attach \"\(name)\" (\(ByteCount.text(planned.file.size))) to \(field)")
        }
        return seen
    }
}
