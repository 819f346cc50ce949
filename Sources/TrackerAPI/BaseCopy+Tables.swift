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
    /// never edited is its creation time; the stricter reading asks for `CREATED_TIME()` too. The instant is wrapped
    /// as `DATETIME_PARSE('…')`, as other clients that filter by time do, so it is compared as a time, not as text.
    public static func changedSince(_ mark: String) -> String {
        let since = "DATETIME_PARSE(\(Formula.literal(mark)))"
        return "OR(IS_AFTER(LAST_MODIFIED_TIME(), \(since)), IS_AFTER(CREATED_TIME(), \(since)))"
    }

    /// Reads `table` whole and puts it in the copy at once (a table first read, on its own).
    func readWhole(_ table: Table, onPage: (@Sendable ([Project]) -> Void)? = nil) async throws {
        var pending = PendingRefresh()
        try await readWhole(table, into: &pending, onPage: onPage)
        lastReport.whole.insert(table)
        if let projects = pending.projects.whole { noteCompletion(projects.records(where: \.isComplete)) }
        pending.projects.apply(to: &projectCopy)
        pending.tasks.apply(to: &taskCopy)
        pending.clients.apply(to: &clientCopy)
    }

    func readWhole(_ table: Table, into pending: inout PendingRefresh, onPage: (@Sendable ([Project]) -> Void)? = nil)
        async throws
    {
        switch table {
        case .projects: pending.projects.whole = try await whole(projectSource, onPage: onPage)
        case .tasks: if let source = taskSource { pending.tasks.whole = try await whole(source) }
        case .clients: if let source = clientSource { pending.clients.whole = try await whole(source) }
        }
    }

    func readChanges(_ table: Table, into pending: inout PendingRefresh) async throws {
        switch table {
        case .projects:
            guard let copy = projectCopy else { return }
            (pending.projects.changed, pending.projects.mark) = try await changes(projectSource, since: copy)
        case .tasks:
            guard let source = taskSource, let copy = taskCopy else { return }
            (pending.tasks.changed, pending.tasks.mark) = try await changes(source, since: copy)
        case .clients:
            guard let source = clientSource, let copy = clientCopy else { return }
            (pending.clients.changed, pending.clients.mark) = try await changes(source, since: copy)
        }
    }

    /// Without a webhook: every 5 minutes the ids alone, and what the copy has beyond them is gone. Records made after
    /// the listing are added by the listing of changes that follows it.
    func listIDsIfDue(_ table: Table, into pending: inout PendingRefresh) async throws {
        let now = localNow()
        switch table {
        case .projects:
            guard let copy = projectCopy else { return }
            pending.projects.gone = try await gone(projectSource, from: copy, now: now)
        case .tasks:
            guard let source = taskSource, let copy = taskCopy else { return }
            pending.tasks.gone = try await gone(source, from: copy, now: now)
        case .clients:
            guard let source = clientSource, let copy = clientCopy else { return }
            pending.clients.gone = try await gone(source, from: copy, now: now)
        }
        pending.idsListed = now
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

/// What one refresh read, kept aside until every read of it succeeded and then applied at once.
struct PendingRefresh {
    var projects = PendingTable<Project>()
    var tasks = PendingTable<ProjectTask>()
    var clients = PendingTable<RawRecord>()
    /// The watch and the cursor the next refresh reads from.
    var watch: WatchState?
    var destroyed: Set<String> = []
    /// When the ids were listed, on the local monotonic clock.
    var idsListed: Double?
}

/// What one refresh read of one table: the table whole, the ids gone, the records changed and the next mark.
struct PendingTable<Record: CopiedRecord> {
    var whole: TableCopy<Record>?
    var gone: [String]?
    var changed: [Record]?
    var mark: String?

    /// The copy brought up to date with what was read: whole first, then the ids gone, then the changes (a record
    /// made after the ids were listed comes back with them).
    func apply(to copy: inout TableCopy<Record>?, idsListed: Double? = nil) {
        if let whole { copy = whole }
        if let gone {
            copy?.remove(gone)
            copy?.idsListed = idsListed
        }
        if let changed {
            copy?.merge(changed)
            copy?.mark = mark
        }
    }
}
