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
/// (cli-spec.md "What changed, not the whole table"): records changed or new by one listing a table since the last
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
    public enum Table: Hashable, Sendable { case projects, tasks, clients }

    /// What every refresh re-reads: a record changed in flight when the last listing was sent is read again.
    public static let margin = 60.0
    /// How often deletions are looked for without a webhook.
    public static let idListingInterval = 300.0
    /// A hook with fewer days than this left is refreshed.
    static let refreshHookBelow = 6 * 86400.0

    let client: ProjectAPIClient
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

    public private(set) var projectCopy: TableCopy<Project>?
    public private(set) var taskCopy: TableCopy<ProjectTask>?
    public private(set) var clientCopy: TableCopy<RawRecord>?
    public private(set) var watch: DeletionWatch?
    private var cursor = 1
    private var hookExpires: Double?
    /// The face's turn (a tool call, a board's refresh): the reads of one turn share one refresh.
    private let turn = Locked(0)
    private var refreshedInTurn: Int?
    private let observer = Locked<(@Sendable (Int) -> Void)?>(nil)
    private var running: Task<Void, Error>?
    /// Projects seen turning complete since the "done lately" listing.
    /// Projects seen turning complete, with the server's time then.
    private var doneSeen: [String: String] = [:]
    /// What Airtable answered for each `since` asked (a board's 14 days, a digest's 7), with when it was asked.
    private var doneLately: [String: (asked: String, ids: Set<String>)] = [:]

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

    /// The projects, brought up to date first; `onPage` sees the pages of a whole read as they arrive (a face shows
    /// its first screen from the first page).
    public func projects(onPage: (@Sendable ([Project]) -> Void)? = nil) async throws -> [Project] {
        try await upToDate([.projects], onPage: onPage)
        return projectCopy?.records ?? []
    }

    /// The tasks, brought up to date first.
    public func tasks() async throws -> [ProjectTask] {
        try await upToDate([.tasks])
        return taskCopy?.records ?? []
    }

    /// The clients' records, brought up to date first.
    public func clients() async throws -> [RawRecord] {
        try await upToDate([.clients])
        return clientCopy?.records ?? []
    }

    /// The projects `keeps` picks, brought up to date first, without a second array of the whole table.
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
        while let running { _ = try? await running.value }
        let missing = tables.filter { !isKept($0) }
        let current = turn.withLock { $0 }
        if missing.isEmpty, refreshedInTurn == current { return }
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

    /// A new turn of the face begins: its first read brings the copy up to date again; `observing` hears how many
    /// records a whole read has read so far (an assistant's progress).
    public nonisolated func beginTurn(observing: (@Sendable (Int) -> Void)? = nil) {
        turn.withLock { $0 += 1 }
        observer.withLock { $0 = observing }
    }

    private func isKept(_ table: Table) -> Bool {
        switch table {
        case .projects: projectCopy != nil
        case .tasks: taskCopy != nil
        case .clients: clientCopy != nil
        }
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

    private func refresh(adding missing: Set<Table>, onPage: (@Sendable ([Project]) -> Void)?) async throws {
        if watch == nil && projectCopy == nil && taskCopy == nil {
            // The first read: the webhook is found (its cursor taken) beside the first page, not before it, so the
            // first screen still waits one round trip. A deletion in the moment between the two is the one thing this
            // could miss; the id listing or the hook's next payloads show every later one.
            let (client, memory) = (self.client, self.memory)
            let finding = Task { try await client.basesWebhook(memory: memory) }
            do {
                for table in missing { try await readWhole(table, onPage: onPage) }
            } catch {
                finding.cancel()
                throw error
            }
            do {
                apply(
                    try await withTaskCancellationHandler {
                        try await finding.value
                    } onCancel: {
                        finding.cancel()
                    })
            } catch {
                // Without the cursor the tables were read against, they are read again with the next one.
                (projectCopy, taskCopy) = (nil, nil)
                throw error
            }
            return
        }
        if watch == nil { try await setUpWatch() }
        var whole = missing
        var destroyed: Set<String> = []
        var changedTables: Set<Table> = [.projects, .tasks, .clients]
        if case .webhook(let id) = watch, !(projectCopy == nil && taskCopy == nil) {
            try await keepHookAlive()
            switch await client.webhookNews(id, from: cursor) {
            case .success(let news):
                if news.missedSome {
                    // Payloads older than the cursor are gone: whatever they said is read again, whole.
                    whole.formUnion(keptTables)
                }
                destroyed = Set(news.destroyed.values.joined())
                changedTables = Set(
                    keptTables.filter { table in
                        guard let tableID = tableIDs[table] else { return !news.isEmpty }
                        return news.changed[tableID] != nil
                    })
                cursor = news.next
            case .failure(let error):
                guard case .http(let status, _) = error, status == 404 else { throw error }
                // The hook expired or was deleted behind tracker's back: a new one, and the tables read whole once.
                memory?.remember(nil)
                watch = nil
                try await setUpWatch()
                whole.formUnion(keptTables)
            }
        }
        for table in whole { try await readWhole(table, onPage: onPage) }
        for table in keptTables where !whole.contains(table) {
            if case .idListing = watch { try await listIDsIfDue(table) }
            if changedTables.contains(table) { try await readChanges(table) }
        }
        if !destroyed.isEmpty { deleted(Array(destroyed)) }
    }

    private var keptTables: [Table] {
        (projectCopy == nil ? [] : [.projects]) + (taskCopy == nil ? [] : [.tasks])
            + (clientCopy == nil ? [] : [.clients])
    }

    /// The server's time now less the margin, as ISO 8601; nil before any answer told the server's time.
    private func markNow() -> String? { Self.mark(client.network.serverClock) }

    /// The server's time now less the margin, as ISO 8601; nil before any answer told the server's time.
    public static func mark(_ clock: ServerClock, sentAt local: Double? = nil) -> String? {
        clock.at(local: local ?? clock.localTime()).map { ISOInstant.text(Date(timeIntervalSince1970: $0 - margin)) }
    }

    private func readWhole(_ table: Table, onPage: (@Sendable ([Project]) -> Void)? = nil) async throws {
        var mark = markNow()
        let clock = client.network.serverClock
        // Before any answer told the server's time, the first page's tells it, counted back to when it was asked.
        let sent = clock.localTime()
        let observer = self.observer.withLock { $0 }
        // Pages go straight into the new copy (no second array of the table); the old one answers until it is whole.
        switch table {
        case .projects:
            var copy = TableCopy<Project>()
            // What turned complete while the copy was not kept up to date (a webhook lost) turned so lately.
            let old = projectCopy
            var turned: [Project] = []
            try await client.listProjects(ListQuery(fields: projectFields)) { page in
                if mark == nil { mark = Self.mark(clock, sentAt: sent) }
                if let old { turned += page.filter { $0.isComplete && old[$0.id]?.isComplete == false } }
                copy.merge(page)
                observer?(copy.count)
                onPage?(page)
            }
            noteCompletion(turned)
            copy.mark = mark
            copy.idsListed = localNow()
            projectCopy = copy
        case .tasks:
            guard let taskTable else { return }
            var copy = TableCopy<ProjectTask>()
            try await client.listTasks(in: taskTable, ListQuery(fields: taskFields)) { page in
                if mark == nil { mark = Self.mark(clock, sentAt: sent) }
                copy.merge(page)
                observer?(copy.count)
            }
            copy.mark = mark
            copy.idsListed = localNow()
            taskCopy = copy
        case .clients:
            guard let clientTable else { return }
            var copy = TableCopy<RawRecord>()
            try await client.listRawRecords(in: clientTable, ListQuery()) { page in
                if mark == nil { mark = Self.mark(clock, sentAt: sent) }
                copy.merge(page)
            }
            copy.mark = mark
            copy.idsListed = localNow()
            clientCopy = copy
        }
    }

    /// The records changed or created since the table's mark. Not recorded: whether `LAST_MODIFIED_TIME()` of a record
    /// never edited is its creation time; the stricter reading asks for `CREATED_TIME()` too.
    public static func changedSince(_ mark: String) -> String {
        let since = Formula.literal(mark)
        return "OR(IS_AFTER(LAST_MODIFIED_TIME(), \(since)), IS_AFTER(CREATED_TIME(), \(since)))"
    }

    private func readChanges(_ table: Table) async throws {
        let sent = markNow()
        switch table {
        case .projects:
            guard let mark = projectCopy?.mark else { return try await readWhole(table) }
            var found: [Project] = []
            try await client.listProjects(ListQuery(filterByFormula: Self.changedSince(mark), fields: projectFields)) {
                found += $0
            }
            noteCompletion(found)
            projectCopy?.merge(found)
            projectCopy?.mark = sent ?? mark
        case .tasks:
            guard let taskTable else { return }
            guard let mark = taskCopy?.mark else { return try await readWhole(table) }
            var found: [ProjectTask] = []
            let query = ListQuery(filterByFormula: Self.changedSince(mark), fields: taskFields)
            try await client.listTasks(in: taskTable, query) {
                found += $0
            }
            taskCopy?.merge(found)
            taskCopy?.mark = sent ?? mark
        case .clients:
            guard let clientTable else { return }
            guard let mark = clientCopy?.mark else { return try await readWhole(table) }
            var found: [RawRecord] = []
            try await client.listRawRecords(in: clientTable, ListQuery(filterByFormula: Self.changedSince(mark))) {
                found += $0
            }
            clientCopy?.merge(found)
            clientCopy?.mark = sent ?? mark
        }
    }

    /// Without a webhook: every 5 minutes the ids alone (the primary field), and what the copy has beyond them is
    /// gone. Records made after the listing are added by the listing of changes that follows it.
    private func listIDsIfDue(_ table: Table) async throws {
        let now = localNow()
        switch table {
        case .projects:
            guard let listed = projectCopy?.idsListed, now - listed >= Self.idListingInterval else { return }
            var ids = Set<String>()
            try await client.listProjects(ListQuery(fields: [client.fields.name])) { ids.formUnion($0.map(\.id)) }
            if let gone = projectCopy?.ids(notIn: ids) { projectCopy?.remove(gone) }
            projectCopy?.idsListed = now
        case .tasks:
            guard let taskTable, let listed = taskCopy?.idsListed, now - listed >= Self.idListingInterval else {
                return
            }
            var ids = Set<String>()
            try await client.listTasks(in: taskTable, ListQuery(fields: [taskTable.fields.name])) {
                ids.formUnion($0.map(\.id))
            }
            if let gone = taskCopy?.ids(notIn: ids) { taskCopy?.remove(gone) }
            taskCopy?.idsListed = now
        case .clients:
            guard let clientTable, let listed = clientCopy?.idsListed, now - listed >= Self.idListingInterval else {
                return
            }
            var ids = Set<String>()
            // No field named: Airtable answers every field, and a Clients table is small.
            try await client.listRawRecords(in: clientTable, ListQuery()) { ids.formUnion($0.map(\.id)) }
            if let gone = clientCopy?.ids(notIn: ids) { clientCopy?.remove(gone) }
            clientCopy?.idsListed = now
        }
    }

    // MARK: - The webhook

    /// Finds the base's webhook (the one remembered, else one made as tracker makes them) or makes it; its cursor is
    /// taken before any table is read, so nothing written after that is missed. Without the scope or the creator's
    /// permission, deletions are watched by listing ids.
    private func setUpWatch() async throws { apply(try await client.basesWebhook(memory: memory)) }

    private func apply(_ found: BaseWebhook) {
        switch found {
        case .unavailable(let reason):
            watch = .idListing(because: reason)
        case .hook(let hook):
            watch = .webhook(id: hook.id)
            cursor = hook.cursorForNextPayload
            hookExpires = hook.expirationTime.flatMap(ISOInstant.date)?.timeIntervalSince1970
        }
    }

    /// Refreshes the hook once fewer than 6 of its 7 days are left, so it never runs out while anyone polls it.
    private func keepHookAlive() async throws {
        guard case .webhook(let id) = watch, let expires = hookExpires,
            let now = client.network.serverClock.now(), expires - now < Self.refreshHookBelow
        else { return }
        if case .success(let time) = await client.refreshWebhook(id) {
            hookExpires = time.flatMap(ISOInstant.date)?.timeIntervalSince1970
        }
    }

    // MARK: - Done lately

    private func noteCompletion(_ projects: [Project]) {
        guard let copy = projectCopy else { return }
        let now = client.network.serverClock.now().map { ISOInstant.text(Date(timeIntervalSince1970: $0)) } ?? ""
        for project in projects {
            if project.isComplete {
                if copy[project.id]?.isComplete != true { doneSeen[project.id] = now }
            } else {
                doneSeen[project.id] = nil
            }
        }
    }

    /// The projects whose completion changed at `since` or later and that may be complete now: `formula` asks Airtable
    /// once for each `since` (a day's), and what turns complete after that the copy sees itself.
    public func completedIDs(since: String, formula: String) async throws -> Set<String> {
        if doneLately[since] == nil {
            let asked = markNow() ?? ""
            var ids = Set<String>()
            try await client.listProjects(ListQuery(filterByFormula: formula, fields: [client.fields.name])) {
                ids.formUnion($0.map(\.id))
            }
            // Yesterday's answers are not asked for again.
            if doneLately.count >= 4 { doneLately = [:] }
            doneLately[since] = (asked, ids)
        }
        let answer = doneLately[since]!
        // Seen turning complete after Airtable answered (less the margin, which only adds what it also said).
        let seen = doneSeen.filter { $0.value >= answer.asked && $0.value >= since }.keys
        return answer.ids.union(seen)
    }
}
