@_spi(Writing) import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

// The only file that sees the client's write methods (`@_spi(Writing)`): every write an operation sends goes through a
// handle made here, and each handle is given only by the route that applies its rule. An operation that calls
// `session.client.updateProjects` does not compile.

extension Session {
    /// A write: when Airtable's answer contradicts what tracker remembered about the base (a field, a choice, a
    /// linked record or a view it no longer has), the schema is read again and `recheck` checks the values once more,
    /// so a stale memory is reported as the value that is wrong, not as Airtable's refusal.
    package func writing<T>(
        recheck: (Session) async throws -> Void, _ body: (Writes) async throws -> T
    ) async throws -> T {
        attempt.wrote()
        return try await journaled { planner in
            try await rechecking(recheck) {
                try await body(Writes(client: client, observer: observer, planner: planner))
            }
        }
    }

    /// A read that names fields, a view or records by what tracker remembered: checked again as `writing` is.
    package func reading<T>(
        recheck: (Session) async throws -> Void, _ body: () async throws -> T
    ) async throws -> T {
        try await rechecking(recheck, body)
    }

    private func rechecking<T>(
        _ recheck: (Session) async throws -> Void, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let error as AppError where Self.contradictsMemory(error) && (inFlight != nil || !knowledge.isCurrent) {
            // Cold, the schema read beside the write says what was assumed wrongly; else it is read again.
            guard let updated = try await withFreshSchema() else { throw error }
            try await recheck(updated)
            throw error
        }
    }

    /// Sends a write that may go out again should the command run once more (a delete, a value set): what is shown
    /// after it waits for the schema read in flight, but a contradiction found then no longer refuses it.
    package func sending<T>(_ body: (Writes) async throws -> T) async throws -> T {
        attempt.wrote()
        return try await journaled { try await body(Writes(client: client, observer: observer, planner: $0)) }
    }

    /// Sends what must not happen twice (an upload, a comment): from here on a failure is reported, never answered by
    /// running the command again with the schema.
    package func sendingOnce<T>(_ body: (OnceSends) async throws -> T) async throws -> T {
        attempt.neverRunAgain()
        return try await journaled { try await body(OnceSends(client: client, planner: $0)) }
    }

    /// Runs a write with its journal entry: opened by the write's route before anything is sent (a journal that
    /// cannot keep it stops the write), kept once more with Airtable's answer when the write is over. Who wrote: the
    /// face's person (serve), else the token's user when remembered, and always the token's fingerprint: a write never
    /// waits for (or adds) a `whoami`.
    private func journaled<T>(_ body: (JournalPlanner?) async throws -> T) async throws -> T {
        let journaling = surroundings.journal
        guard journaling.isOn else { return try await body(nil) }
        if let shared = oneEntry {
            return try await body(JournalPlanner(recorder: shared, client: client, reader: reader))
        }
        let recorder = JournalRecorder(journaling, command: activity)
        let planner = JournalPlanner(recorder: recorder, client: client, reader: reader)
        return try await recording(recorder) { try await body(planner) }
    }

    /// `body`, its entry kept once more when it is over: with Airtable's answers, or with what its failure left.
    private func recording<T>(_ recorder: JournalRecorder, _ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            recorder.finish(failure: nil, user: knowledge.rememberedUser)
            return result
        } catch {
            recorder.finish(failure: error, user: knowledge.rememberedUser)
            throw error
        }
    }

    /// Runs `body`'s writes as one journal entry (an undo's updates, deletions and creates), which undoes `undoing`
    /// when given; returns what `body` returned and the entry's id (nil when nothing was journaled).
    package func asOneEntry<T>(
        undoing: String? = nil, approving: String? = nil, id: String = JournalEntry.newID(),
        _ body: (Session) async throws -> T
    ) async throws -> (T, entry: String?) {
        let journaling = surroundings.journal
        guard journaling.isOn else { return (try await body(self), nil) }
        let recorder = JournalRecorder(journaling, command: activity, undoes: undoing, approved: approving, id: id)
        var joined = self
        joined.oneEntry = recorder
        let result = try await recording(recorder) { try await body(joined) }
        return (result, recorder.entryID)
    }

    /// Creates one record, exactly once. With `ifAbsent`, a record already there needs no write, so no lock: it is
    /// looked for first; only a create takes the lock (`lockName`), and looks again under it, so two runs of the same
    /// cron line cannot both find the name absent and both create it. The lock is the client's lease, confirmed right
    /// before each attempt goes out (a lease run out, a Redis restarted). Once the create may have been sent, the
    /// command is never run again; with `recheck`, a create the schema contradicts is checked again (`writing`).
    package func create<Record>(
        ifAbsent: Bool, lockName: [String], for command: String, doing what: String,
        find: () async throws -> Record?, recheck: ((Session) async throws -> Void)? = nil,
        send: (Creates) async throws -> Record
    ) async throws -> Creation<Record> {
        var leased = client
        if ifAbsent {
            if let record = try await find() { return .found(record) }
            leased.lease = try await lock(lockName, for: command, doing: what)
            if let record = try await find() { return .found(record) }
        }
        defer { withExtendedLifetime(leased) {} }
        // A create whose answer is lost may have happened: no second run may send it again. A field the assumed layout
        // named wrongly is refused by Airtable (nothing created) and then checked against the schema.
        attempt.neverRunAgain()
        let record: Record = try await journaled { planner in
            let creates = Creates(client: leased, observer: observer, planner: planner)
            if let recheck {
                attempt.wrote()
                return try await rechecking(recheck) { try await send(creates) }
            }
            return try await send(creates)
        }
        await finish()
        return .created(record)
    }

    /// Holds what `parts` name for `command` in this table of this base against every other tracker process (of the
    /// machine, or of the team when `"redis"` is set; `machineOnly` for what guards this machine's own files),
    /// waiting at most the retry budget, until the returned lock is released; other names and tables go on at once.
    /// Nil when there is nowhere to hold it.
    package func lock(
        _ parts: [String], for command: String, doing what: String, machineOnly: Bool = false
    ) async throws -> (any HeldLock)? {
        let shared = surroundings.coordination
        let engine: any Coordination = machineOnly ? shared.thisMachine : shared
        // A lock that guards a write names the table by its id once the schema told it: machines configured with the
        // table's name and with its id (`tbl…`) take the same lock. A machine's own lock (`changes`' snapshot) names
        // what its snapshot does, and waits for no schema.
        let table = machineOnly ? configuration.table : try await confirmedLayout().table?.id ?? configuration.table
        return try await engine.lock(
            [command, table] + parts, for: configuration.budgetOwner,
            waitingAtMost: Double(configuration.retryBudgetSeconds), doing: what,
            now: surroundings.network.now, sleep: surroundings.network.sleep
        ).get()
    }

    /// Writes by ids alone in one request when every target is a record id and `allowed`: Airtable's answer says
    /// whether each id is one of this table's (a batch it refuses writes nothing). Returns false, having written
    /// nothing, when the targets are not all ids or Airtable says one is not in this table: the caller then finds the
    /// projects by the naming rule.
    package func writtenByID(_ targets: [String], allowed: Bool, _ write: ([String]) async throws -> Void) async throws
        -> Bool
    {
        guard allowed, targets.allSatisfy(ProjectAPIClient.looksLikeRecordID) else { return false }
        do {
            try await write(Self.unique(targets))
            return true
        } catch let error as AppError where ProjectAPIClient.isNotInThisTable(error) {
            return false
        }
    }

    /// The values in their first order, each once.
    package static func unique(_ values: [String]) -> [String] {
        values.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}

/// What a create came to: the record it made, or (with `--if-absent`) the one already there.
package enum Creation<Record: Sendable>: Sendable {
    case created(Record)
    case found(Record)

    /// The record made or found.
    package var record: Record {
        switch self {
        case .created(let record), .found(let record): record
        }
    }

    /// Whether the record was made now (false: `--if-absent` found it there).
    package var isNew: Bool { if case .created = self { true } else { false } }
}

/// Writes that may be sent again (a value set, a delete settled by looking), given by `Session.writing` and
/// `Session.sending`; each answer goes to the session's write observer at once, so a face's copy (and the team's)
/// shows it.
package struct Writes: Sendable {
    fileprivate let client: ProjectAPIClient
    fileprivate let observer: any WriteObserver
    /// The journal entry's keeper; nil where writes are not journaled.
    fileprivate let planner: JournalPlanner?

    /// Sets projects' cells, ten a request, passing each batch as Airtable answered it. `known`: the projects as the
    /// write read them (their cells are the journal's before-values; others are read from the copy, or once by id).
    package func updateProjects(
        _ changes: [ProjectChange], known: [Project] = [], onUpdated: ([Project]) async throws -> Void
    ) async throws {
        let indices = try await planner?.updates(changes, known: known) ?? [:]
        try planner?.recorder.proceed()
        try await client.updateProjects(changes) { projects in
            for project in projects { if let index = indices[project.id] { planner?.recorder.answered(index) } }
            await observer.heard(.projects(projects))
            try await onUpdated(projects)
        }
    }

    /// Creates projects as upserts on `key` (sent again, they update what they made).
    package func upsertProjects(
        _ writes: [ProjectWrite], mergingOn key: [FieldMap.Word], onWritten: ([Project]) async throws -> Void
    ) async throws {
        var next = try planner?.creates(writes) ?? 0
        try planner?.recorder.proceed()
        try await client.upsertProjects(writes, mergingOn: key) { projects in
            for project in projects {
                planner?.recorder.answered(next, id: project.id)
                next += 1
            }
            await observer.heard(.projects(projects))
            try await onWritten(projects)
        }
    }

    /// Deletes projects, ten a request (see `ProjectAPIClient.deleteProjects`); `known`: the projects as the delete
    /// read them, whose whole rows the journal keeps.
    package func deleteProjects(
        _ ids: [String], known: [Project] = [], unverified: Bool = false, onDeleted: ([String]) async throws -> Void
    ) async throws {
        let indices = try await planner?.deletions(ids, known: known) ?? [:]
        try planner?.recorder.proceed()
        try await client.deleteProjects(ids, unverified: unverified) { batch in
            for id in batch { if let index = indices[id] { planner?.recorder.answered(index) } }
            await observer.heard(.deleted(batch, from: .projects))
            try await onDeleted(batch)
        }
    }

    /// Sets tasks' cells, ten a request.
    package func updateTasks(
        _ changes: [TaskChange], in table: TaskTable, known: [ProjectTask] = [],
        onUpdated: ([ProjectTask]) async throws -> Void
    ) async throws {
        let indices = try await planner?.taskUpdates(changes, in: table, known: known) ?? [:]
        try planner?.recorder.proceed()
        try await client.updateTasks(changes, in: table) { tasks in
            for task in tasks { if let index = indices[task.id] { planner?.recorder.answered(index) } }
            await observer.heard(.tasks(tasks))
            try await onUpdated(tasks)
        }
    }

    /// Deletes tasks, ten a request.
    package func deleteTasks(
        _ ids: [String], in table: TaskTable, known: [ProjectTask] = [], onDeleted: ([String]) async throws -> Void
    ) async throws {
        let indices = try await planner?.taskDeletions(ids, in: table, known: known) ?? [:]
        try planner?.recorder.proceed()
        try await client.deleteTasks(ids, in: table) { batch in
            for id in batch { if let index = indices[id] { planner?.recorder.answered(index) } }
            await observer.heard(.deleted(batch, from: .tasks))
            try await onDeleted(batch)
        }
    }

    /// Sets an attachment cell to exactly `keeping`; `before`: what it held, for the journal.
    package func keepAttachments(_ keeping: [String], in cell: AttachmentCell, before: [Attachment]) async throws
        -> [Attachment]
    {
        let index = try planner?.keep(keeping, in: cell, before: before)
        try planner?.recorder.proceed()
        let kept = try await client.keepAttachments(keeping, in: cell).get()
        if let index { planner?.recorder.answered(index) }
        return kept
    }

    /// Deletes one of the token's user's comments (an undo of `comment`).
    package func deleteComment(_ id: String, on recordID: String, inTable table: String?) async throws {
        try await client.deleteComment(id, on: recordID, inTable: table).get()
    }
}

/// Sends that must never go out twice (an upload, a comment), given only by `Session.sendingOnce`.
package struct OnceSends: Sendable {
    fileprivate let client: ProjectAPIClient
    fileprivate let planner: JournalPlanner?

    /// Uploads `file` to `cell`, never twice (see `ProjectAPIClient.uploadOnce`).
    package func upload(
        _ file: UploadFile, to cell: AttachmentCell, known: Set<String>,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil
    ) async -> Result<Attachment, AppError> {
        let index: Int?
        do {
            index = try planner?.attach(file, to: cell)
            try planner?.recorder.proceed()
        } catch {
            return .failure(error as? AppError ?? .file("\(error)"))
        }
        let result = await client.uploadOnce(file, to: cell, known: known, progress: progress)
        if case .success(let attachment) = result, let index {
            planner?.recorder.answered(
                index,
                after: [
                    (
                        cell.field,
                        .array([
                            .object([("id", .string(attachment.id)), ("filename", .string(attachment.filename))])
                        ])
                    )
                ])
        }
        return result
    }

    /// Adds one comment by `user`, never two.
    package func addComment(_ text: String, to recordID: String, by user: String, inTable table: String?) async
        -> Result<RecordComment, AppError>
    {
        let index: Int?
        do {
            index = try planner?.comment(text, on: recordID, table: table)
            try planner?.recorder.proceed()
        } catch {
            return .failure(error as? AppError ?? .file("\(error)"))
        }
        let result = await client.addComment(text, to: recordID, by: user, inTable: table)
        if case .success(let comment) = result, let index {
            planner?.recorder.answered(index, after: [("comment", .string(text)), ("commentId", .string(comment.id))])
        }
        return result
    }
}

/// Creates, given only by `Session.create`: its client holds the `--if-absent` lock, confirmed before each attempt.
package struct Creates: Sendable {
    fileprivate let client: ProjectAPIClient
    fileprivate let observer: any WriteObserver
    fileprivate let planner: JournalPlanner?

    /// Creates one project, never twice.
    package func project(_ write: ProjectWrite, name: String, due: CalendarDate?) async throws -> Project {
        let index = try planner?.creates([write])
        try planner?.recorder.proceed()
        let project = try await client.createProject(write, name: name, due: due).get()
        if let index { planner?.recorder.answered(index, id: project.id) }
        await observer.heard(.projects([project]))
        return project
    }

    /// Creates one task in `table`, linked to `project`, never twice.
    package func task(_ write: TaskWrite, in table: TaskTable, name: String, project: String) async throws
        -> ProjectTask
    {
        let index = try planner?.taskCreate(write, in: table)
        try planner?.recorder.proceed()
        let task = try await client.createTask(write, in: table, name: name, project: project).get()
        if let index { planner?.recorder.answered(index, id: task.id) }
        await observer.heard(.tasks([task]))
        return task
    }
}
