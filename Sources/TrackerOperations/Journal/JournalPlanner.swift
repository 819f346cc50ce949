import TrackerAPI
import TrackerModel

/// What a write is about to do, as its journal entry keeps it: each record's fields before (from the records the
/// write already read, else from the face's copy, else one read of the touched fields by id) and after. Used by the
/// session's write routes alone, before each write is sent.
struct JournalPlanner: Sendable {
    let recorder: JournalRecorder
    let client: ProjectAPIClient
    let reader: any RecordReader

    // MARK: - Projects

    /// Opens the update of `changes`; returns each project's change's index in the entry, by id.
    func updates(_ changes: [ProjectChange], known: [Project]) async throws -> [String: Int] {
        let map = client.fields
        let afters = changes.map { $0.write.fields(map).objectMembers ?? [] }
        let names = Self.unique(afters.flatMap { $0.map(\.0) })
        let found = try await projects(changes.map(\.id), known: known, fields: names)
        let befores = try await beforeValues(
            ids: changes.map(\.id), afters: afters, found: found, table: client.access.table
        ) {
            JournalCells.value(of: $0, field: $1, map: map)
        }
        return try plan(
            zip(changes, zip(befores, afters)).map { change, pair in
                JournalEntry.Change(kind: .update, id: change.id, before: pair.0, after: pair.1)
            }, table: client.access.table)
    }

    /// Opens the creates of `writes` (ids come with Airtable's answer); returns the first one's index.
    func creates(_ writes: [ProjectWrite]) throws -> Int {
        let changes = writes.map {
            JournalEntry.Change(kind: .create, id: nil, after: $0.fields(client.fields).objectMembers ?? [])
        }
        return try recorder.plan(changes, user: nil, table: client.access.table)
    }

    /// Opens the deletion of projects: each one's whole row and the records linked to it.
    func deletions(_ ids: [String], known: [Project]) async throws -> [String: Int] {
        let found = try await projects(ids, known: known, fields: nil)
        let changes = ids.map { id in
            let row = found[id].map { JournalCells.row(of: $0, map: client.fields) } ?? []
            return JournalEntry.Change(kind: .delete, id: id, before: row, links: Self.links(in: row))
        }
        return try plan(await countingComments(changes, table: nil), table: client.access.table)
    }

    // MARK: - Tasks

    /// Opens the update of tasks.
    func taskUpdates(_ changes: [TaskChange], in table: TaskTable, known: [ProjectTask]) async throws -> [String: Int] {
        let afters = changes.map { $0.write.fields(table.fields).objectMembers ?? [] }
        let found = try await tasks(changes.map(\.id), in: table, known: known)
        let befores = try await beforeValues(ids: changes.map(\.id), afters: afters, found: found, table: table.route) {
            JournalCells.value(of: $0, field: $1, map: table.fields)
        }
        return try plan(
            zip(changes, zip(befores, afters)).map { change, pair in
                JournalEntry.Change(kind: .update, id: change.id, before: pair.0, after: pair.1)
            }, table: table.route)
    }

    /// Opens the create of one task.
    func taskCreate(_ write: TaskWrite, in table: TaskTable) throws -> Int {
        try recorder.plan(
            [JournalEntry.Change(kind: .create, id: nil, after: write.fields(table.fields).objectMembers ?? [])],
            user: nil, table: table.route)
    }

    /// Opens the deletion of tasks: each one's whole row.
    func taskDeletions(_ ids: [String], in table: TaskTable, known: [ProjectTask]) async throws -> [String: Int] {
        let found = try await tasks(ids, in: table, known: known)
        let changes = ids.map { id in
            let row = found[id].map { JournalCells.row(of: $0, map: table.fields) } ?? []
            return JournalEntry.Change(kind: .delete, id: id, before: row, links: Self.links(in: row))
        }
        return try plan(await countingComments(changes, table: table.route), table: table.route)
    }

    // MARK: - Comments and files

    /// Opens a comment on `recordID` (its id comes with Airtable's answer).
    func comment(_ text: String, on recordID: String, table: String?) throws -> Int {
        try recorder.plan(
            [JournalEntry.Change(kind: .comment, id: recordID, after: [("comment", .string(text))])], user: nil,
            table: table ?? client.access.table)
    }

    /// Opens an upload of `file` to `cell` (the attachment's id comes with the answer). Held for approval, the plan
    /// keeps where the file is, its size and its SHA-256: approved, the same bytes are sent, or nothing.
    func attach(_ file: UploadFile, to cell: AttachmentCell) throws -> Int {
        var change = JournalEntry.Change(
            kind: .attach, id: cell.recordID,
            after: [(cell.field, .array([.object([("filename", .string(file.filename))])]))])
        if recorder.willHold([change]) {
            change.after = [(cell.field, .array([PlannedFile.object(file, sha256: try PlannedFile.sha256(file.path))]))]
        }
        return try recorder.plan([change], user: nil, table: cell.table)
    }

    /// Opens the setting of an attachment cell to `keeping`: `before` is what it held (each file whole, so an undo
    /// can bring back those removed while their addresses live).
    func keep(_ keeping: [String], in cell: AttachmentCell, before: [Attachment]) throws -> Int {
        try recorder.plan(
            [
                JournalEntry.Change(
                    kind: .update, id: cell.recordID, before: [(cell.field, .array(before.map(\.object)))],
                    after: [(cell.field, .array(keeping.map { .object([("id", .string($0))]) }))])
            ], user: nil, table: cell.table)
    }

    // MARK: - Reading what was there

    /// A deletion held for approval, with each record's comments counted (they go with it, and no undo brings them
    /// back: the person approving should see them). Counted only where the approval is asked (one read a record, at
    /// most ten records, a hundred comments; more is shown as that many); any other deletion as it is.
    private func countingComments(_ changes: [JournalEntry.Change], table: String?) async
        -> [JournalEntry.Change]
    {
        guard changes.count <= 10, recorder.willHold(changes) else { return changes }
        var counted = changes
        for index in counted.indices {
            guard let id = counted[index].id,
                case .success(let comments) = await client.comments(on: id, limit: 100, inTable: table)
            else { continue }
            counted[index].comments = comments.count
        }
        return counted
    }

    private func plan(_ changes: [JournalEntry.Change], table: String) throws -> [String: Int] {
        let first = try recorder.plan(changes, user: nil, table: table)
        var indices: [String: Int] = [:]
        for (offset, change) in changes.enumerated() { if let id = change.id { indices[id] = first + offset } }
        return indices
    }

    /// The projects by id: those the write read, the others from the reader (the copy answers without a request).
    private func projects(_ ids: [String], known: [Project], fields: [String]?) async throws -> [String: Project] {
        try await byID(ids, known: known, id: \.id) { try await reader.projects(ids: $0, fields: fields).get() }
    }

    private func tasks(_ ids: [String], in table: TaskTable, known: [ProjectTask]) async throws -> [String: ProjectTask]
    {
        try await byID(ids, known: known, id: \.id) { try await reader.tasks(in: table, ids: $0).get() }
    }

    /// Records by id: those the write read, the others from `read` (the reader: the copy answers without a request).
    private func byID<Record>(
        _ ids: [String], known: [Record], id: (Record) -> String, read: ([String]) async throws -> [Record]
    ) async throws -> [String: Record] {
        var found: [String: Record] = [:]
        for record in known { found[id(record)] = record }
        let missing = Self.unique(ids.filter { found[$0] == nil })
        if !missing.isEmpty { for record in try await read(missing) { found[id(record)] = record } }
        return found
    }

    /// Each record's cells before the write, for the fields it sets: from the records `found` (`value`: a field's
    /// value, nil where the model cannot say it exactly), the rest (a select's value) read once, by id, as Airtable
    /// holds them. Empty for a record not found.
    private func beforeValues<Record>(
        ids: [String], afters: [[(String, JSONValue)]], found: [String: Record], table: String,
        value: (Record, String) -> JSONValue?
    ) async throws -> [[(String, JSONValue)]] {
        var befores: [[(String, JSONValue)]?] = zip(ids, afters).map { id, after in
            guard let record = found[id] else { return nil }
            let values = after.map { name, _ in value(record, name).map { (name, $0) } }
            return values.contains { $0 == nil } ? nil : values.compactMap { $0 }
        }
        let missing = befores.indices.filter { befores[$0] == nil }
        if !missing.isEmpty {
            let names = Self.unique(missing.flatMap { afters[$0].map(\.0) })
            let records = try await client.rawRecords(ids: missing.map { ids[$0] }, inTable: table, fields: names).get()
            for index in missing {
                let cells = records.first { $0.id == ids[index] }?.fields
                befores[index] = afters[index].map { name, _ in (name, cells?[name] ?? .null) }
            }
        }
        return befores.map { $0 ?? [] }
    }

    /// The links a row holds: fields whose value is a list of record ids (its tasks, its client).
    static func links(in row: [(String, JSONValue)]) -> [(String, [String])] {
        row.compactMap { name, value in
            guard let items = value.arrayValue, !items.isEmpty else { return nil }
            let ids = items.compactMap(\.stringValue)
            guard ids.count == items.count, ids.allSatisfy({ $0.hasPrefix("rec") }) else { return nil }
            return (name, ids)
        }
    }

    static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}
