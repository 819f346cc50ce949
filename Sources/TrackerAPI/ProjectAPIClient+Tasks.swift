#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// The Tasks table as the client reaches it: its route (the table's id when known), its name and its fields.
public struct TaskTable: Equatable, Sendable {
    public var route: String
    public var name: String
    public var fields: TaskFieldMap

    public init(route: String, name: String, fields: TaskFieldMap) {
        self.route = route
        self.name = name
        self.fields = fields
    }
}

/// One task's id and the cells to change.
public struct TaskChange: Equatable, Sendable {
    public var id: String
    public var write: TaskWrite

    public init(id: String, write: TaskWrite) {
        self.id = id
        self.write = write
    }
}

/// The template's Tasks table: the same routes, pacing, paging and exactly-once rules as the projects'
/// (docs/airtable.md "The other tables"), only another table and its words.
extension ProjectAPIClient {
    /// Streams every task matching `query`, a page at a time, as `listProjects` streams projects.
    public func listTasks(
        in table: TaskTable, _ query: ListQuery, onPage: ([ProjectTask]) async throws -> Void
    ) async throws {
        try await streamPages({ await taskPage(table, query, offset: $0) }, id: \.id, onPage: onPage)
    }

    /// Every task matching `formula`, all pages.
    public func tasks(in table: TaskTable, matching formula: String, limit: Int? = nil) async -> Result<
        [ProjectTask], AppError
    > {
        let query = ListQuery(filterByFormula: formula, maxRecords: limit)
        return await collectPages({ await taskPage(table, query, offset: $0) }, id: \.id)
    }

    /// The tasks with these ids, read by id (a link field is names inside a formula, so never by matching a project's
    /// name): a hundred ids a request, the requests side by side, in the order of `ids`; ids that are not tasks are
    /// left out.
    /// `also`, when given, narrows each request further on Airtable (the filters of `tracker tasks PROJECT`).
    public func tasks(in table: TaskTable, ids: [String], also: Selection<ProjectTask>?) async -> Result<
        [ProjectTask], AppError
    > {
        let also = also?.formula
        return await records(ids: ids, id: \.id) { chunk in
            let byID = Formula.any(chunk.map(Formula.recordID(is:)))
            return await tasks(in: table, matching: also.map { Formula.all([byID, $0]) } ?? byID)
        }
    }

    private func taskPage(_ table: TaskTable, _ query: ListQuery, offset: String?) async -> Result<
        RecordPage<ProjectTask>, AppError
    > {
        await send(listRequest(url(ofTable: table.route), query, offset: offset), kind: .idempotent).flatMap {
            data in Result { () throws(AppError) in try RecordDecoding.tasks(data, map: table.fields) }
        }
    }

    // MARK: - Writing

    /// `POST` of one task; no `typecast`.
    public func plannedTaskCreate(_ write: TaskWrite, in table: TaskTable) -> PlannedRequest {
        PlannedRequest(
            method: "POST", path: path(ofTable: table.route), body: .object([("fields", write.fields(table.fields))]))
    }

    /// `PATCH` requests of at most ten tasks each.
    public func plannedTaskUpdates(_ changes: [TaskChange], in table: TaskTable) -> [PlannedRequest] {
        Self.batches(changes).map { batch in
            let records = batch.map {
                JSONValue.object([("id", .string($0.id)), ("fields", $0.write.fields(table.fields))])
            }
            return PlannedRequest(
                method: "PATCH", path: path(ofTable: table.route), body: .object([("records", .array(records))]))
        }
    }

    /// `DELETE` requests of at most ten tasks each.
    public func plannedTaskDeletes(_ ids: [String], in table: TaskTable) -> [PlannedRequest] {
        Self.batches(ids).map { batch in
            PlannedRequest(
                method: "DELETE", path: path(ofTable: table.route) + "?" + Self.encode(batch.map { ("records[]", $0) }),
                body: nil)
        }
    }

    /// Creates one task in `project` and returns it as Airtable stored it; never creates it twice: a lost answer is
    /// looked for among the project's tasks of that name made since (the same rule as `createProject`).
    @_spi(Writing) public func createTask(_ write: TaskWrite, in table: TaskTable, name: String, project: String) async
        -> Result<
            ProjectTask, AppError
        >
    {
        await createOnce(
            plannedTaskCreate(write, in: table), describing: "the task \"\(name)\"", name: name, noun: "task",
            decode: { (data) throws(AppError) in try RecordDecoding.task(data, map: table.fields) },
            find: { since in
                await tasks(in: table, matching: Formula.nameEquals(name, field: table.fields.name)).map { found in
                    found.filter { $0.name == name && $0.projects.contains(project) && $0.createdTime >= since }
                        .max { $0.createdTime < $1.createdTime }
                }
            })
    }

    /// Applies `changes` ten tasks a request, passing each batch's tasks as Airtable returns them.
    @_spi(Writing) public func updateTasks(
        _ changes: [TaskChange], in table: TaskTable, onUpdated: ([ProjectTask]) async throws -> Void
    )
        async throws
    {
        try await sendIdempotent(
            plannedTaskUpdates(changes, in: table),
            decode: { (data) throws(AppError) in try RecordDecoding.tasks(data, map: table.fields).records },
            onWritten: onUpdated)
    }

    /// Deletes the tasks ten a request; a lost answer is settled by looking, as for projects.
    @_spi(Writing) public func deleteTasks(
        _ ids: [String], in table: TaskTable, onDeleted: ([String]) async throws -> Void
    ) async throws {
        try await deleteOnce(
            ids, planned: { plannedTaskDeletes($0, in: table)[0] },
            existing: { remaining in await tasks(in: table, ids: remaining).map { $0.map(\.id) } },
            onDeleted: onDeleted)
    }
}
