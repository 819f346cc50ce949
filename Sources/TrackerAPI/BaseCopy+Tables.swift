#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// How the copy reads its tables: whole, what changed since a mark, and the ids alone; one way for every table.
extension BaseCopy {
    /// One table as the copy reads it.
    struct Source<Record: CopiedRecord>: Sendable {
        var list: @Sendable (ListQuery, ([Record]) async throws -> Void) async throws -> Void
        /// The fields kept; nil for all.
        var fields: [String]?
        /// The one field an id listing names (the primary field); nil names none (a small table answers whole).
        var idField: String?
    }

    var projectSource: Source<Project> {
        let client = client
        return Source(
            list: { try await client.listProjects($0, onPage: $1) }, fields: projectFields, idField: client.fields.name)
    }

    var taskSource: Source<ProjectTask>? {
        guard let taskTable else { return nil }
        let client = client
        return Source(
            list: { try await client.listTasks(in: taskTable, $0, onPage: $1) }, fields: taskFields,
            idField: taskTable.fields.name)
    }

    var clientSource: Source<RawRecord>? {
        guard let clientTable else { return nil }
        let client = client
        return Source(
            list: { try await client.listRawRecords(in: clientTable, $0, onPage: $1) }, fields: nil, idField: nil)
    }

    /// The server's time now less the margin, as ISO 8601; nil before any answer told the server's time.
    func markNow() -> String? { Self.mark(client.network.serverClock) }

    /// The server's time at `local` (now, by default) less the margin, as ISO 8601; nil before any answer told it.
    public static func mark(_ clock: ServerClock, sentAt local: Double? = nil) -> String? {
        clock.at(local: local ?? clock.localTime()).map { ISOInstant.text(Date(timeIntervalSince1970: $0 - margin)) }
    }

    /// The records changed or created since the table's mark. Not recorded: whether `LAST_MODIFIED_TIME()` of a record
    /// never edited is its creation time; the stricter reading asks for `CREATED_TIME()` too.
    public static func changedSince(_ mark: String) -> String {
        let since = Formula.literal(mark)
        return "OR(IS_AFTER(LAST_MODIFIED_TIME(), \(since)), IS_AFTER(CREATED_TIME(), \(since)))"
    }

    func readWhole(_ table: Table, onPage: (@Sendable ([Project]) -> Void)? = nil) async throws {
        switch table {
        case .projects:
            let copy = try await whole(projectSource, onPage: onPage)
            // What turned complete while the copy was not kept up to date (a webhook lost) turned so lately.
            noteCompletion(copy.records(where: \.isComplete))
            projectCopy = copy
        case .tasks: if let source = taskSource { taskCopy = try await whole(source) }
        case .clients: if let source = clientSource { clientCopy = try await whole(source) }
        }
    }

    func readChanges(_ table: Table) async throws {
        switch table {
        case .projects:
            guard let copy = projectCopy else { return }
            let (found, mark) = try await changes(projectSource, since: copy)
            noteCompletion(found)
            projectCopy?.merge(found)
            projectCopy?.mark = mark
        case .tasks:
            guard let source = taskSource, let copy = taskCopy else { return }
            let (found, mark) = try await changes(source, since: copy)
            taskCopy?.merge(found)
            taskCopy?.mark = mark
        case .clients:
            guard let source = clientSource, let copy = clientCopy else { return }
            let (found, mark) = try await changes(source, since: copy)
            clientCopy?.merge(found)
            clientCopy?.mark = mark
        }
    }

    /// Without a webhook: every 5 minutes the ids alone, and what the copy has beyond them is gone. Records made after
    /// the listing are added by the listing of changes that follows it.
    func listIDsIfDue(_ table: Table) async throws {
        let now = localNow()
        switch table {
        case .projects:
            guard let copy = projectCopy, let gone = try await gone(projectSource, from: copy, now: now) else { return }
            projectCopy?.remove(gone)
            projectCopy?.idsListed = now
        case .tasks:
            guard let source = taskSource, let copy = taskCopy, let gone = try await gone(source, from: copy, now: now)
            else { return }
            taskCopy?.remove(gone)
            taskCopy?.idsListed = now
        case .clients:
            guard let source = clientSource, let copy = clientCopy,
                let gone = try await gone(source, from: copy, now: now)
            else { return }
            clientCopy?.remove(gone)
            clientCopy?.idsListed = now
        }
    }

    /// The table read whole into a new copy, page by page (no second array of it); the old copy answers until then.
    private func whole<Record>(_ source: Source<Record>, onPage: (@Sendable ([Record]) -> Void)? = nil) async throws
        -> TableCopy<Record>
    {
        var mark = markNow()
        let clock = client.network.serverClock
        // Before any answer told the server's time, the first page's tells it, counted back to when it was asked.
        let sent = clock.localTime()
        let observer = self.observer.withLock { $0 }
        var copy = TableCopy<Record>()
        try await source.list(ListQuery(fields: source.fields)) { page in
            if mark == nil { mark = Self.mark(clock, sentAt: sent) }
            copy.merge(page)
            observer?(copy.count)
            onPage?(page)
        }
        copy.mark = mark
        copy.idsListed = localNow()
        return copy
    }

    /// The records changed since `copy`'s mark, and the mark for the next listing (the server's time it was sent).
    private func changes<Record>(_ source: Source<Record>, since copy: TableCopy<Record>) async throws -> (
        [Record], String?
    ) {
        let sent = markNow()
        var found: [Record] = []
        // A copy with no mark (read before the server told its time) is read again whole, merged.
        let query = ListQuery(filterByFormula: copy.mark.map(Self.changedSince), fields: source.fields)
        try await source.list(query) { found += $0 }
        return (found, sent ?? copy.mark)
    }

    /// The ids of `copy` no longer in the table, when its ids are due to be listed again; nil when they are not.
    private func gone<Record>(_ source: Source<Record>, from copy: TableCopy<Record>, now: Double) async throws
        -> [String]?
    {
        guard let listed = copy.idsListed, now - listed >= Self.idListingInterval else { return nil }
        var ids = Set<String>()
        try await source.list(ListQuery(fields: source.idField.map { [$0] })) { ids.formUnion($0.map(\.id)) }
        return copy.ids(notIn: ids)
    }
}
