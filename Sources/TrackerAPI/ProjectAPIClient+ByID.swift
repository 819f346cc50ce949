import TrackerModel

extension ProjectAPIClient {
    /// The projects with these ids, in their order; ids that are not projects are left out. `fields`, when given,
    /// are the only fields read (only fields known to exist: Airtable refuses a request naming one the table lacks).
    public func projects(ids: [String], fields: [String]?) async -> Result<[Project], AppError> {
        return await records(ids: ids, id: \.id) { chunk in
            await projects(matching: Formula.any(chunk.map(Formula.recordID(is:))), fields: fields)
        }
    }

    /// Records of any table read by id, a hundred ids a request (a page's worth), the requests side by side and paced
    /// like every other; returned in the order of `ids`, each once, those not found left out.
    func records<Record: Sendable>(
        ids: [String], id: @escaping @Sendable (Record) -> String,
        read: @escaping @Sendable ([String]) async -> Result<[Record], AppError>
    ) async -> Result<[Record], AppError> {
        var unique: [String] = []
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted { unique.append(id) }
        guard !unique.isEmpty else { return .success([]) }
        let chunks = unique.chunked(into: 100)
        let results = await withTaskGroup(of: Result<[Record], AppError>.self) { group in
            for chunk in chunks { group.addTask { await read(chunk) } }
            var results: [Result<[Record], AppError>] = []
            for await result in group { results.append(result) }
            return results
        }
        var found: [String: Record] = [:]
        for result in results {
            switch result {
            case .success(let records): for record in records { found[id(record)] = record }
            case .failure(let error): return .failure(error)
            }
        }
        return .success(unique.compactMap { found[$0] })
    }
}

extension ProjectAPIClient {
    /// Records of any table (`table`: its id or name) read by id, their cells as Airtable sent them, only `fields`
    /// when given: what the journal reads of a record before a write whose before-values nothing else had.
    public func rawRecords(ids: [String], inTable table: String, fields: [String]?) async -> Result<
        [RawRecord], AppError
    > {
        await records(ids: ids, id: \.id) { chunk in
            await rawRecords(
                in: table,
                query: ListQuery(filterByFormula: Formula.any(chunk.map(Formula.recordID(is:))), fields: fields))
        }
    }
}
