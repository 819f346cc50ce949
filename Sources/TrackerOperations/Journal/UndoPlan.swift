import TrackerAPI
import TrackerModel

/// What undoing one journal entry would do, worked out from the records as Airtable holds them now (read fresh, a
/// hundred ids a request): the fields to put back, the records to delete, the deletions to make again, and what is
/// left alone because it changed since.
package struct UndoPlan: Sendable {
    /// Which table a record is in.
    enum Table: Sendable {
        case projects
        case tasks(TaskTable)
    }

    /// Fields to put back on one record: their values before the entry.
    struct Restore: Sendable {
        var id: String
        var table: Table
        var cells: [(String, JSONValue)]
    }

    /// A deleted record to make again.
    struct Remake: Sendable {
        var was: String
        var table: Table
        var cells: [(String, JSONValue)]
    }

    var restores: [Restore] = []
    var deletions: [(id: String, table: Table)] = []
    /// Comments to delete: the comment's id, its record, the record's table.
    var uncomments: [(id: String, record: String, table: String)] = []
    /// Attachment cells to set back to what they hold but the file the entry added.
    var detaches: [(cell: AttachmentCell, keeping: [String])] = []
    var remakes: [Remake] = []
    /// Comments to add (an approved `comment`): the record, its table, the text.
    var comments: [(record: String, table: String, text: String)] = []
    /// Files to upload (an approved `attach`), each checked to be the bytes planned.
    var attaches: [(cell: AttachmentCell, file: UploadFile)] = []
    /// The command the plan's creates are made for (their lock and status lines).
    var command = "undo"
    /// What is left alone, each as a phrase: a field changed since, a record deleted since.
    package var left: [String] = []
    /// The lines a person is shown before it is done (and `--dry-run` prints).
    package var lines: [String] = []
    /// The deleted records made again: the old id and the new.
    package var madeAgain: [(was: String, now: String)] = []
    /// The records as they are now, for the journal's before-values of the undo itself.
    var projectsNow: [Project] = []
    var tasksNow: [ProjectTask] = []

    /// Whether there is nothing to write.
    package var isEmpty: Bool {
        restores.isEmpty && deletions.isEmpty && remakes.isEmpty && uncomments.isEmpty && detaches.isEmpty
            && comments.isEmpty && attaches.isEmpty
    }

    /// `--json`'s members.
    var object: [(String, JSONValue)] {
        [
            (
                "restored",
                .array(restores.map { .object([("id", .string($0.id)), ("fields", .object($0.cells))]) })
            ),
            ("deleted", .array(deletions.map { .string($0.id) })),
            ("commentsDeleted", .array(uncomments.map { .string($0.id) })),
            ("filesRemoved", .array(detaches.map { .string($0.cell.recordID) })),
            (
                "madeAgain",
                .array(madeAgain.map { .object([("was", .string($0.was)), ("now", .string($0.now))]) })
            ),
            ("toMakeAgain", .array(remakes.map { .string($0.was) })),
            ("leftAlone", .array(left.map(JSONValue.string))),
        ]
    }

    /// The plan for `entry`, from the records as they are now.
    static func make(_ entry: JournalEntry, in session: Session) async throws -> UndoPlan {
        var plan = UndoPlan()
        for (change, table) in try await plan.readNow(entry, in: session) {
            guard let table else {
                plan.left.append("a record of \(change.table ?? entry.table), a table tracker does not write")
                continue
            }
            plan.add(change, in: table, entry: entry, session: session)
        }
        return plan
    }

    /// Reads the records `entry` touched as they are now (a hundred ids a request, only the tables it touched);
    /// returns each change with its table (nil: a table tracker does not write).
    mutating func readNow(_ entry: JournalEntry, in session: Session) async throws -> [(
        JournalEntry.Change, Table?
    )] {
        let projectsTable = session.client.access.table
        let tasks = try? session.taskLayout()
        func table(of change: JournalEntry.Change) -> Table? {
            let name = change.table ?? entry.table
            if name == projectsTable || name == session.layout.table?.id || name == session.layout.table?.name {
                return .projects
            }
            if let tasks, name == tasks.route || name == tasks.name || name == tasks.table?.id {
                return .tasks(tasks.client)
            }
            return nil
        }
        let changes = entry.changes.map { ($0, table(of: $0)) }
        let projectIDs = changes.compactMap { $0.1 == .projects ? $0.0.id : nil }
        if !projectIDs.isEmpty { projectsNow = try await session.client.projects(ids: projectIDs, fields: nil).get() }
        let taskIDs = changes.compactMap { change, table in table.map { $0 != .projects } == true ? change.id : nil }
        if let tasks, !taskIDs.isEmpty {
            tasksNow = try await session.client.tasks(in: tasks.client, ids: taskIDs).get()
        }
        return changes
    }

    /// The value a record holds now in `field`; nil when the record is gone.
    func current(_ id: String, _ field: String, in table: Table, session: Session) -> JSONValue?? {
        switch table {
        case .projects:
            guard let project = projectsNow.first(where: { $0.id == id }) else { return nil }
            return .some(JournalCells.value(of: project, field: field, map: session.client.fields))
        case .tasks(let tasks):
            guard let task = tasksNow.first(where: { $0.id == id }) else { return nil }
            return .some(JournalCells.value(of: task, field: field, map: tasks.fields))
        }
    }

    func exists(_ id: String, in table: Table) -> Bool {
        switch table {
        case .projects: projectsNow.contains { $0.id == id }
        case .tasks: tasksNow.contains { $0.id == id }
        }
    }

    private mutating func add(_ change: JournalEntry.Change, in table: Table, entry: JournalEntry, session: Session) {
        switch change.kind {
        case .update:
            guard let id = change.id else { return }
            guard exists(id, in: table) else { return left.append("\(id) was deleted since") }
            var cells: [(String, JSONValue)] = []
            for (field, after) in change.after {
                let before = change.before.first { $0.0 == field }?.1 ?? .null
                let now = current(id, field, in: table, session: session) ?? nil
                if let now, JournalCells.same(now, after) {
                    if !JournalCells.same(after, before) { cells.append((field, Self.restorable(before, now: now))) }
                } else if let now, JournalCells.same(now, before) {
                    continue  // never written (its answer lost), or put back already
                } else {
                    left.append(
                        "\(id): \"\(field)\" is now \(Self.shown(now ?? .null)) (\(entry.id) set \(Self.shown(after)))")
                }
            }
            guard !cells.isEmpty else { return }
            restores.append(Restore(id: id, table: table, cells: cells))
            lines.append(
                "\(id): " + cells.map { "\($0.0) back to \(Self.shown($0.1))" }.joined(separator: ", "))
        case .create:
            guard let id = change.id else {
                return left.append("a record \(entry.id) made whose answer was never had (look for it in the app)")
            }
            guard exists(id, in: table) else { return }
            let changed = change.after.filter { field, after in
                guard let now = current(id, field, in: table, session: session) ?? nil else { return true }
                return !JournalCells.same(now, after)
            }
            guard changed.isEmpty else {
                return left.append(
                    "\(id) was changed since it was made (\(changed.map { "\"\($0.0)\"" }.joined(separator: ", "))), so it is kept"
                )
            }
            deletions.append((id, table))
            lines.append("\(id): delete it (\(entry.id) made it)")
        case .comment:
            guard let id = change.id, let comment = change.after.first(where: { $0.0 == "commentId" })?.1.stringValue
            else { return left.append("a comment \(entry.id) added whose answer was never had (look in the app)") }
            uncomments.append((comment, id, change.table ?? entry.table))
            lines.append("\(id): delete the comment \(comment)")
        case .attach:
            guard let id = change.id, let (field, added) = change.after.first,
                let attachment = added.arrayValue?.first?["id"]?.stringValue
            else { return left.append("a file \(entry.id) attached whose answer was never had (look in the app)") }
            guard let now = current(id, field, in: table, session: session) ?? nil else {
                return left.append("\(id) was deleted since")
            }
            let held = now.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            guard held.contains(attachment) else { return }
            detaches.append(
                (
                    AttachmentCell(table: change.table ?? entry.table, recordID: id, field: field, fieldID: nil),
                    held.filter { $0 != attachment }
                ))
            let name = added.arrayValue?.first?["filename"]?.stringValue ?? attachment
            lines.append("\(id): remove the file \"\(name)\" from \(field)")
        case .delete:
            guard let id = change.id, !exists(id, in: table) else { return }
            guard !change.before.isEmpty else {
                return left.append("\(id): its fields were not kept, so it cannot be made again")
            }
            let cells = Self.writable(change.before, in: table, session: session)
            remakes.append(Remake(was: id, table: table, cells: cells))
            let name = change.before.first { $0.0 == Self.nameField(table, session) }?.1.stringValue
            lines.append(
                "\(id)\(name.map { " \"\($0)\"" } ?? ""): make it again under a new id, with its \(cells.count) fields and links"
            )
        }
    }

    /// A deleted row's cells a create may send: those Airtable computes are left out, and with the schema, fields
    /// the table no longer has; people and files as a write gives them.
    static func writable(_ row: [(String, JSONValue)], in table: Table, session: Session) -> [(String, JSONValue)] {
        let schema: BaseSchema.Table? =
            switch table {
            case .projects: session.layout.table
            case .tasks: (try? session.taskLayout())?.table
            }
        return row.compactMap { name, value in
            if let schema {
                guard let field = schema.field(named: name), !field.isComputed else { return nil }
            }
            return (name, JournalCells.writable(value))
        }
    }

    static func nameField(_ table: Table, _ session: Session) -> String {
        switch table {
        case .projects: session.client.fields.name
        case .tasks(let tasks): tasks.fields.name
        }
    }

    /// A value to put back as a write sends it; a file still in the cell by its id (kept as it is), one removed since
    /// by its address (Airtable fetches it again while the address lives, about two hours after it was read).
    static func restorable(_ value: JSONValue, now: JSONValue) -> JSONValue {
        guard let items = value.arrayValue, items.contains(where: { $0["filename"] != nil }) else {
            return JournalCells.writable(value)
        }
        let held = Set(now.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        return .array(
            items.map { item in
                if let id = item["id"]?.stringValue, held.contains(id) { return .object([("id", .string(id))]) }
                return JournalCells.writable(item)
            })
    }

    /// A value as a line shows it.
    static func shown(_ value: JSONValue) -> String {
        if JournalCells.isEmpty(value) { return "(empty)" }
        switch value {
        case .string(let text):
            return "\"" + TextCells.folded(String(text.prefix(40))) + (text.count > 40 ? "…\"" : "\"")
        case .number(let number): return number == number.rounded() ? String(Int(number)) : String(number)
        case .bool(let flag): return flag ? "ticked" : "unticked"
        case .array(let items): return items.map(shown).joined(separator: ", ")
        case .object:
            // A person by email, a file by its name: what a person reading a diff recognises, never a bare id.
            return value["email"]?.stringValue ?? value["filename"]?.stringValue ?? value["name"]?.stringValue
                ?? value["id"]?.stringValue ?? "…"
        default: return "…"
        }
    }
}

extension UndoPlan {
    /// Carries the plan out in `session` (one journal entry): fields put back, creates deleted, deletions made again
    /// (each exactly once). Returns the records made again.
    func apply(in session: Session) async throws -> [(was: String, now: String)] {
        let projectRestores = restores.filter { $0.table == .projects }.map { restore in
            ProjectChange(id: restore.id, write: Self.write(restore.cells))
        }
        let projectDeletions = deletions.filter { $0.table == .projects }.map(\.id)
        if !projectRestores.isEmpty || !projectDeletions.isEmpty {
            try await session.sending { writes in
                if !projectRestores.isEmpty {
                    try await writes.updateProjects(projectRestores, known: projectsNow) { _ in }
                }
                if !projectDeletions.isEmpty {
                    try await writes.deleteProjects(projectDeletions, known: projectsNow) { _ in }
                }
            }
        }
        for case .tasks(let table) in Set(restores.map(\.table) + deletions.map(\.table)).filter({ $0 != .projects }) {
            let changes = restores.filter { $0.table == .tasks(table) }.map {
                TaskChange(id: $0.id, write: Self.write($0.cells))
            }
            let ids = deletions.filter { $0.table == .tasks(table) }.map(\.id)
            try await session.sending { writes in
                if !changes.isEmpty { try await writes.updateTasks(changes, in: table, known: tasksNow) { _ in } }
                if !ids.isEmpty { try await writes.deleteTasks(ids, in: table, known: tasksNow) { _ in } }
            }
        }
        if !uncomments.isEmpty || !detaches.isEmpty {
            try await session.sending { writes in
                for comment in uncomments {
                    try await writes.deleteComment(comment.id, on: comment.record, inTable: comment.table)
                }
                for detach in detaches {
                    let before = Self.attachments(detach.cell, in: self, session: session)
                    _ = try await writes.keepAttachments(detach.keeping, in: detach.cell, before: before)
                }
            }
        }
        if !comments.isEmpty {
            let me = try await session.knowledge.me()
            for comment in comments {
                _ = try await session.sendingOnce { sends in
                    try await sends.addComment(comment.text, to: comment.record, by: me, inTable: comment.table).get()
                }
            }
        }
        if !attaches.isEmpty {
            _ = try await session.sendingOnce { sends in
                var known: [String: Set<String>] = [:]
                for attach in attaches {
                    let cell = attach.cell.recordID + "\u{1F}" + attach.cell.field
                    let before = known[cell] ?? Set(Self.attachments(attach.cell, in: self, session: session).map(\.id))
                    let attachment = try await sends.upload(attach.file, to: attach.cell, known: before).get()
                    known[cell] = before.union([attachment.id])
                }
            }
        }
        var made: [(was: String, now: String)] = []
        for remake in remakes {
            let name = remake.cells.first { $0.0 == Self.nameField(remake.table, session) }?.1.stringValue ?? ""
            switch remake.table {
            case .projects:
                let due = remake.cells.first { $0.0 == session.client.fields[.due] }?.1.stringValue.flatMap(
                    CalendarDate.init)
                let created = try await session.create(
                    ifAbsent: false, lockName: [], for: command, doing: "making \(remake.was) again", find: { nil },
                    send: { try await $0.project(Self.write(remake.cells), name: name, due: due) })
                made.append((remake.was, created.record.id))
            case .tasks(let table):
                let project =
                    remake.cells.first { $0.0 == table.fields[.project] }?.1.arrayValue?.first?.stringValue ?? ""
                let created = try await session.create(
                    ifAbsent: false, lockName: [], for: command, doing: "making \(remake.was) again", find: { nil },
                    send: { try await $0.task(Self.write(remake.cells), in: table, name: name, project: project) })
                made.append((remake.was, created.record.id))
            }
        }
        return made
    }

    /// What an attachment cell holds now, as the plan read it.
    static func attachments(_ cell: AttachmentCell, in plan: UndoPlan, session: Session) -> [Attachment] {
        let value =
            plan.projectsNow.first { $0.id == cell.recordID }.flatMap {
                JournalCells.value(of: $0, field: cell.field, map: session.client.fields)
            }
            ?? plan.tasksNow.first { $0.id == cell.recordID }?.otherFields.first { $0.name == cell.field }?.value
        return Attachment.list(value)
    }

    /// Cells by the base's field names, as a write sends them.
    static func write<Word>(_ cells: [(String, JSONValue)]) -> RecordWrite<Word> {
        var write = RecordWrite<Word>()
        for (name, value) in cells { write[.field(name)] = value }
        return write
    }
}

extension UndoPlan.Table: Hashable {
    static func == (lhs: UndoPlan.Table, rhs: UndoPlan.Table) -> Bool {
        switch (lhs, rhs) {
        case (.projects, .projects): true
        case (.tasks(let left), .tasks(let right)): left.route == right.route
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .projects: hasher.combine(0)
        case .tasks(let table): hasher.combine(table.route)
        }
    }
}
