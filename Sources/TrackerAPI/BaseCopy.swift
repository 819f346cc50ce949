#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel
import TrackerSystem

/// Where the base's webhook id is kept, so every process of the machine (or of the team) polls the same one.
public protocol WebhookMemory: Sendable {
    func recall() -> String?
    func remember(_ id: String?)
}

/// The tables a face keeps (projects, tasks), read whole once and then brought up to date with what changed since
/// (docs/contract.md "What changed, not the whole table"): records changed or new by one listing a table since the last
/// one (`LAST_MODIFIED_TIME()`, the server's clock less a margin), deletions by the base's webhook, else by a listing
/// of ids at most every 5 minutes. A refresh that fails leaves the copy as the last one that succeeded.
public actor BaseCopy {
    /// What tells the copy of deletions.
    public enum DeletionWatch: Equatable, Sendable {
        /// The base's webhook, polled from this process's own cursor.
        case webhook(id: String)
        /// A listing of ids every 5 minutes, and why there is no webhook.
        case idListing(because: String)
    }

    /// One of the tables kept.
    public enum Table: Hashable, Sendable {
        case projects, tasks, clients

        /// The order tables are read whole in: the projects first.
        static let inOrder: [Table] = [.projects, .tasks, .clients]
    }

    /// What every refresh re-reads: a record changed in flight when the last listing was sent is read again.
    public static let margin = 60.0
    /// How often deletions are looked for without a webhook.
    public static let idListingInterval = 300.0

    package nonisolated let client: ProjectAPIClient
    let taskTable: TaskTable?
    /// The table the projects' Client field links to (its id, or its name without the schema).
    public nonisolated let clientTable: String?
    /// The tables' ids (from the schema), by which payloads name them; nil when unknown (any news is news for all).
    let tableIDs: [Table: String]
    let memory: WebhookMemory?
    /// The only fields kept (a board's), nil for all of them: a copy of some fields answers only reads of those.
    public nonisolated let projectFields: [String]?
    public nonisolated let taskFields: [String]?
    let localNow: @Sendable () -> Double
    /// The team's copy this copy is fed from (and, while this process polls, feeds); nil keeps it alone.
    public nonisolated let team = Locked<(any SharedCopy)?>(nil)
    /// What the last refresh changed, for the team's copy.
    var lastReport = RefreshReport()

    public internal(set) var projectCopy: TableCopy<Project>?
    public internal(set) var taskCopy: TableCopy<ProjectTask>?
    public internal(set) var clientCopy: TableCopy<RawRecord>?
    public internal(set) var watch: DeletionWatch?
    var cursor = 1
    /// The hook's expiry as this process knows it (seconds since 1970, the server's clock): past it, the hook may
    /// have been disabled and its news is not trusted.
    var hookExpires: Double?
    /// Hooks whose payloads said they broke: never adopted again by this copy.
    var distrustedHooks: Set<String> = []
    /// The face's turn (a tool call, a board's refresh): the reads of one turn share one refresh.
    private let turn = Locked(0)
    private var refreshedInTurn: Int?
    let observer = Locked<(@Sendable (Int) -> Void)?>(nil)
    var running: Task<Void, Error>?
    /// Projects seen turning complete, with the server's time then.
    var doneSeen: [String: String] = [:]
    /// What Airtable answered for each `since` asked (a board's 14 days, a digest's 7), with when it was asked.
    var doneLately: [String: (asked: String, ids: Set<String>)] = [:]

    public init(
        client: ProjectAPIClient, tasks: TaskTable?, tableIDs: [Table: String], memory: WebhookMemory?,
        clients: String? = nil, projectFields: [String]? = nil, taskFields: [String]? = nil,
        localNow: @escaping @Sendable () -> Double = MonotonicClock.now
    ) {
        self.clientTable = clients
        self.projectFields = projectFields
        self.taskFields = taskFields
        self.client = client
        self.taskTable = tasks
        self.tableIDs = tableIDs
        self.memory = memory
        self.localNow = localNow
    }

    // MARK: - Reading

    /// Whether the copy holds every field a read of `fields` (nil: all) wants.
    public nonisolated func holds(projectFields fields: [String]?) -> Bool { Self.covers(projectFields, fields) }

    public nonisolated func holds(taskFields fields: [String]?) -> Bool { Self.covers(taskFields, fields) }

    private static func covers(_ kept: [String]?, _ wanted: [String]?) -> Bool {
        guard let kept else { return true }
        guard let wanted else { return false }
        return Set(wanted).isSubset(of: kept)
    }

    /// The projects, brought up to date first.
    public func projects() async throws -> [Project] {
        try await upToDate([.projects])
        return projectCopy?.records ?? []
    }

    /// The tasks `keeps` picks (the first `limit` of them when given), brought up to date first, in pages of `size`
    /// made in one pass over the copy: no array of the whole table between.
    public func tasks(where keeps: @Sendable (ProjectTask) -> Bool, limit: Int?, size: Int) async throws
        -> [[ProjectTask]]
    {
        try await upToDate([.tasks])
        return taskCopy?.pages(where: keeps, limit: limit, size: size) ?? []
    }

    /// The projects with these ids (in their order, each once), brought up to date first.
    public func projects(ids: [String]) async throws -> [Project] {
        try await upToDate([.projects])
        return projectCopy?.records(ids: ids) ?? []
    }

    /// The tasks with these ids (in their order, each once) that `keeps` picks, brought up to date first.
    public func tasks(ids: [String], where keeps: @Sendable (ProjectTask) -> Bool) async throws -> [ProjectTask] {
        try await upToDate([.tasks])
        return taskCopy?.records(ids: ids).filter(keeps) ?? []
    }

    /// The clients' records, brought up to date first.
    public func clients() async throws -> [RawRecord] {
        try await upToDate([.clients])
        return clientCopy?.records ?? []
    }

    /// The projects `keeps` picks, brought up to date first, without a second array of the whole table; `onPage` sees
    /// the pages of a whole read as they arrive (a face shows its first screen from the first page).
    public func projects(
        where keeps: @Sendable (Project) -> Bool, onPage: (@Sendable ([Project]) -> Void)? = nil
    ) async throws -> [Project] {
        try await upToDate([.projects], onPage: onPage)
        return projectCopy?.records(where: keeps) ?? []
    }

    /// `summarize` run over the tasks, brought up to date first, inside the copy: a face that wants a count a project
    /// never holds the whole table twice.
    public func summarizeTasks<Summary: Sendable>(
        into summary: Summary, _ summarize: @Sendable (inout Summary, ProjectTask) -> Void
    ) async throws -> Summary {
        try await upToDate([.tasks])
        var summary = summary
        taskCopy?.forEach { summarize(&summary, $0) }
        return summary
    }

    /// Brings every table kept, and `tables`, up to date (one refresh at a time; a caller arriving while one runs waits
    /// for it and then runs its own unless it is fresh).
    public func upToDate(_ tables: Set<Table>, onPage: (@Sendable ([Project]) -> Void)? = nil) async throws {
        let team = team.withLock { $0 }
        if running != nil, let team, let onPage {
            // A face arriving while this process reads whole for the team sees the pages still to come, as one that
            // asked first does (else its first screen waits for the whole read).
            await team.showPages(onPage)
        }
        while let running { _ = try? await running.value }
        let missing = tables.filter { !isKept($0) }
        let current = turn.withLock { $0 }
        if missing.isEmpty, refreshedInTurn == current {
            if let team, onPage != nil { await team.showPages(nil) }
            return
        }
        // The team's copy answers when it can vouch for itself (once a turn: the reads of one tool call or one board
        // refresh ask Redis once); else this copy reads Airtable as it would alone.
        if let team, await team.serves(self, onPage: onPage) {
            refreshedInTurn = current
            return
        }
        // The work runs on this actor and clears `running` itself, so whoever waited on it sees it gone.
        let work = Task {
            defer { running = nil }
            // A table first read in a turn whose refresh is done reads only itself.
            if refreshedInTurn == current {
                for table in missing { try await readWhole(table, onPage: onPage) }
            } else {
                try await refresh(adding: missing, onPage: onPage)
            }
            refreshedInTurn = current
        }
        running = work
        // A caller that gives up (a call cancelled, the server ending) stops the reading it started.
        try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// A new turn of the face begins: its first read brings the copy up to date again (unless not `freshening`: the
    /// face knows nothing changed); `observing` hears how many records a whole read has read so far (an assistant's
    /// progress).
    public nonisolated func beginTurn(observing: (@Sendable (Int) -> Void)? = nil, freshening: Bool = true) {
        if freshening { turn.withLock { $0 += 1 } }
        observer.withLock { $0 = observing }
    }

    private func isKept(_ table: Table) -> Bool { keptTables.contains(table) }

    var keptTables: [Table] {
        (projectCopy == nil ? [] : [.projects]) + (taskCopy == nil ? [] : [.tasks])
            + (clientCopy == nil ? [] : [.clients])
    }

    // MARK: - Writes of this process

    /// Records this process wrote, as Airtable answered: in the copy at once (records of other tables pass by).
    public func wrote<Record: Sendable>(_ records: [Record]) {
        if let projects = records as? [Project] { wrote(projects) }
        if let tasks = records as? [ProjectTask] { wrote(tasks) }
    }

    /// Projects this process wrote.
    public func wrote(_ projects: [Project]) {
        guard projectCopy != nil else { return }
        noteCompletion(projects)
        projectCopy?.merge(projects)
    }

    /// Tasks this process wrote.
    public func wrote(_ tasks: [ProjectTask]) { taskCopy?.merge(tasks) }

    /// Records this process deleted.
    public func deleted(_ ids: [String]) {
        projectCopy?.remove(ids)
        taskCopy?.remove(ids)
        clientCopy?.remove(ids)
    }

    // MARK: - Refreshing

    /// One refresh, all or nothing: what it reads is kept aside, and the webhook's cursor, each table's mark, the
    /// records and the deletions move together only once every read of it succeeded. One that fails leaves them all
    /// as they were, so the next refresh reads the same news again.
    func refresh(adding missing: Set<Table>, onPage: (@Sendable ([Project]) -> Void)?) async throws {
        if watch == nil && keptTables.isEmpty { return try await firstRead(missing, onPage: onPage) }
        var pending = PendingRefresh()
        var news = TableNews(whole: missing, changed: Set(keptTables))
        switch watch {
        case .webhook(let id)?:
            let (found, state) = try await webhookNews(id, adding: missing)
            (news, pending.watch) = (found, state)
        case .idListing?: break
        case nil:
            pending.watch = try await watchState()
            news.whole.formUnion(keptTables)
        }
        let listsIDs = if case .idListing = pending.watch?.watch ?? watch { true } else { false }
        for table in Table.inOrder where news.whole.contains(table) {
            try await readWhole(table, into: &pending, onPage: onPage)
        }
        for table in keptTables where !news.whole.contains(table) {
            if listsIDs { try await listIDsIfDue(table, into: &pending) }
            if news.changed.contains(table) { try await readChanges(table, into: &pending) }
        }
        pending.destroyed = news.destroyed
        commit(pending)
    }

    /// Applies a refresh whose every read succeeded, at once (no suspension point between its parts).
    private func commit(_ pending: PendingRefresh) {
        // An id no table here holds (a record another process put in the team's copy while this one had not seen it)
        // is sent as gone from every table: a deletion is never dropped for not being known.
        let unseen = pending.destroyed.filter { id in
            projectCopy?.contains(id) != true && taskCopy?.contains(id) != true && clientCopy?.contains(id) != true
        }
        lastReport = RefreshReport(
            pending,
            destroyedIn: { [projectCopy, taskCopy, clientCopy] table in
                let copyHas: (String) -> Bool =
                    switch table {
                    case .projects: { projectCopy?.contains($0) == true }
                    case .tasks: { taskCopy?.contains($0) == true }
                    case .clients: { clientCopy?.contains($0) == true }
                    }
                return pending.destroyed.filter(copyHas).union(unseen)
            })
        if let projects = pending.projects.whole {
            // What turned complete while the copy was not kept up to date (a webhook lost) turned so lately.
            noteCompletion(projects.records(where: \.isComplete))
        }
        if let changed = pending.projects.changed { noteCompletion(changed) }
        pending.projects.apply(to: &projectCopy, idsListed: pending.idsListed)
        pending.tasks.apply(to: &taskCopy, idsListed: pending.idsListed)
        pending.clients.apply(to: &clientCopy, idsListed: pending.idsListed)
        if let state = pending.watch { apply(state) }
        if !pending.destroyed.isEmpty { deleted(Array(pending.destroyed)) }
    }

    /// The first read: the webhook is found (its cursor taken) beside the first page, not before it, so the first
    /// screen still waits one round trip. A deletion in the moment between the two is the one thing this could miss;
    /// the id listing or the hook's next payloads show every later one.
    private func firstRead(_ tables: Set<Table>, onPage: (@Sendable ([Project]) -> Void)?) async throws {
        let (client, memory, distrusted) = (self.client, self.memory, distrustedHooks)
        let finding = Task { try await client.basesWebhook(memory: memory, distrusted: distrusted) }
        do {
            // The projects first: a face shows its first screen from their first page.
            for table in Table.inOrder where tables.contains(table) { try await readWhole(table, onPage: onPage) }
            lastReport = RefreshReport(whole: Set(tables))
            apply(
                state(
                    of: try await withTaskCancellationHandler {
                        try await finding.value
                    } onCancel: {
                        finding.cancel()
                    }))
        } catch {
            finding.cancel()
            // Without the cursor the tables were read against, they are read again with the next one.
            (projectCopy, taskCopy, clientCopy) = (nil, nil, nil)
            throw error
        }
    }
}
