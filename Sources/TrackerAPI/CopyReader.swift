import TrackerModel

/// Listings answered from the copy of the tables a face keeps (`BaseCopy`, brought up to date by its own reads); what
/// the copy cannot answer (a view, an order, a formula with no predicate beside it, a field it does not keep) is read
/// from Airtable.
public struct CopyReader: RecordReader {
    public let copy: BaseCopy
    /// Reads what the copy cannot answer.
    let airtable: ProjectAPIClient

    public init(copy: BaseCopy, airtable: ProjectAPIClient) {
        self.copy = copy
        self.airtable = airtable
    }

    public func listProjects(_ query: ListQuery, onPage: ([Project]) async throws -> Void) async throws {
        guard query.isAnsweredByCopy, copy.holds(projectFields: query.fields), case .projects(let keeps)? = query.keeps
        else { return try await airtable.listProjects(query, onPage: onPage) }
        // A first read of the table passes its pages on as Airtable's arrive (a face shows its first screen from the
        // first page); what the copy then holds, less those, follows.
        let (arriving, arrived) = AsyncStream<[Project]>.makeStream()
        let copy = self.copy
        let reading = Task {
            defer { arrived.finish() }
            return try await copy.projects(where: keeps, onPage: { arrived.yield($0) })
        }
        // The read is the copy's own task: a listing given up (a call cancelled, the server ending) stops it.
        try await withTaskCancellationHandler {
            defer { reading.cancel() }
            var left = query.maxRecords ?? .max
            var passed = Set<String>()
            for await page in arriving where left > 0 {
                let picked = Array(page.lazy.filter(keeps).prefix(left))
                guard !picked.isEmpty else { continue }
                left -= picked.count
                for project in picked { passed.insert(project.id) }
                try await onPage(picked)
            }
            let rest = try await reading.value.lazy.filter { !passed.contains($0.id) }.prefix(left)
            guard passed.isEmpty || !rest.isEmpty else { return }
            try await Self.pages(of: Array(rest), onPage)
        } onCancel: {
            reading.cancel()
        }
    }

    public func projects(ids: [String], fields: [String]?) async -> Result<[Project], AppError> {
        guard copy.holds(projectFields: fields) else { return await airtable.projects(ids: ids, fields: fields) }
        return await gathering { try await $0(copy.projects(ids: ids)) }
    }

    public func listTasks(
        in table: TaskTable, _ query: ListQuery, onPage: ([ProjectTask]) async throws -> Void
    ) async throws {
        guard query.isAnsweredByCopy, copy.holds(taskFields: query.fields), case .tasks(let keeps)? = query.keeps else {
            return try await airtable.listTasks(in: table, query, onPage: onPage)
        }
        let pages = try await copy.tasks(where: keeps, limit: query.maxRecords, size: Self.pageSize)
        // An empty listing is still one page, as Airtable's is.
        if pages.isEmpty { return try await onPage([]) }
        for page in pages { try await onPage(page) }
    }

    public func tasks(in table: TaskTable, ids: [String], also: Selection<ProjectTask>?) async -> Result<
        [ProjectTask], AppError
    > {
        guard copy.holds(taskFields: nil) else { return await airtable.tasks(in: table, ids: ids, also: also) }
        let keeps = also?.keeps ?? Selection<ProjectTask>.every
        return await gathering { try await $0(copy.tasks(ids: ids, where: keeps)) }
    }

    public func rawRecords(in table: String, query: ListQuery) async -> Result<[RawRecord], AppError> {
        // The copy keeps the Clients table whole: a plain listing of it is answered there.
        guard copy.clientTable == table, query == ListQuery() else {
            return await airtable.rawRecords(in: table, query: query)
        }
        return await gathering { try await $0(copy.clients()) }
    }

    public func completedLately(since: String, formula: String?) async throws -> Set<String>? {
        guard let formula else { return [] }
        return try await copy.completedIDs(since: since, formula: formula)
    }

    public func naming(_ map: FieldMap) -> any RecordReader { CopyReader(copy: copy, airtable: airtable.using(map)) }

    /// How many records a page of Airtable's holds, and so a page of the copy's.
    static let pageSize = 100

    /// Records the copy holds, passed on a hundred at a time as Airtable's pages would be.
    static func pages<Record>(of records: [Record], _ onPage: ([Record]) async throws -> Void) async throws {
        var start = 0
        repeat {
            let end = min(records.count, start + pageSize)
            try await onPage(Array(records[start..<end]))
            start = end
        } while start < records.count
    }
}

/// The face's copy told what this process wrote: it shows it at once.
extension CopyReader: WriteObserver {
    public func heard(_ written: WrittenRecords) async {
        switch written {
        case .projects(let projects): await copy.wrote(projects)
        case .tasks(let tasks): await copy.wrote(tasks)
        case .deleted(let ids, _): await copy.deleted(ids)
        }
    }
}

/// The face's upkeep of its copy: turns, how deletions are seen, whose copy it is.
extension CopyReader: CopyUpkeep {
    public func beginTurn() { copy.beginTurn() }
    public func deletionWatch() async -> BaseCopy.DeletionWatch {
        await copy.watch ?? .idListing(because: "the copy has not looked for a webhook yet")
    }
    public func sharedState() async -> String? { await copy.team.withLock { $0 }?.state }
}
