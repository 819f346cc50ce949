#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

/// The days the Done column reaches back.
private let doneDays = 14

/// How the board reads: one listing of what its filters pick, asked of the session's reader (the board's copy of the
/// tables, whole once and then what changed; Airtable with a view, or for a cold first screen read beside the schema).
extension OpenBoard {
    /// Reads the table, one listing at a time: a tick while one is in flight is skipped, so a stalled network never
    /// piles up requests.
    package mutating func startReading(first: Bool) {
        guard !reading else { return }
        reading = true
        if !first { refreshed = [] }
        let host = self.host
        let cold = self.session
        let filters = self.filters
        let view = self.view
        let input = self.input
        Task {
            do {
                // Cold, the first screen is read beside the schema (one round trip); after it the schema is remembered,
                // and the session comes again with the reader the face chose.
                let session = first || cold.inFlight == nil ? cold : try await host.opener.session(.schemaFirst)
                let reader = session.reader
                session.upkeep?.beginTurn()
                let fields = session.layout.fields
                let since = ProjectDigest.start(
                    of: CalendarDate(dayNumber: host.today.dayNumber - doneDays + 1), in: host.timeZone)
                // Done lately: a reader that applies the predicate is told which projects turned complete (no record
                // says when); the first screen does not wait for it: open cards show as their pages come.
                let doneFormula = Formula.completedSince(since, fields: fields)
                let asking = Task { try await reader.completedLately(since: since, formula: doneFormula) }
                let listing = try await session.projectListing(
                    filters, view: view, command: "board",
                    also: Formula.openOrDoneSince(since, fields: fields).map {
                        Selection(formula: $0, keeps: Selection.every)
                    }, showing: BaseCopies.boardProjectWords)
                var tasks: Task<TaskSummary, Error>?
                defer { tasks?.cancel() }
                var projects: [Project] = []
                try await listing.read(reader) { page in
                    // The tasks are counted once the projects' first page is in: beside the rest of the listing, and
                    // never ahead of the copy's first read of the projects.
                    if tasks == nil { tasks = Self.taskSummaryRead(session, first: first, host: host) }
                    projects += page
                    guard first else { return }
                    input.yield(.page(page.filter { !$0.isComplete }.map { BoardCard($0) }, first: true))
                }
                // Asked beside the listing (Airtable, once a day), then again: what turned complete in this refresh is
                // known to the reader only once it has read it.
                _ = try await asking.value
                let lately = try await reader.completedLately(since: since, formula: doneFormula)
                let shown = projects.filter { !$0.isComplete || lately?.contains($0.id) ?? true }
                if first {
                    let doneCards = shown.filter(\.isComplete).map { BoardCard($0) }
                    if !doneCards.isEmpty { input.yield(.page(doneCards, first: true)) }
                }
                var all = shown.map { BoardCard($0) }
                if let upkeep = session.upkeep {
                    let watch = await upkeep.deletionWatch()
                    if let shared = await upkeep.sharedState() { input.yield(.readsFrom(shared)) }
                    input.yield(.deletions(Self.deletionsText(watch)))
                }
                if let summary = try? await (tasks ?? Self.taskSummaryRead(session, first: first, host: host))?.value {
                    summary.fill(&all)
                    input.yield(.tasks(summary.byProject))
                }
                input.yield(.read(.success(all), first: first))
            } catch {
                Self.failed(error, first: first, into: input)
            }
        }
    }

    /// Each project's tasks counted (done, total, assignees), in one listing of the fields that takes; nil when the
    /// base has no Tasks table.
    ///
    /// Every task is read: on the first screen, through the board's copy when it keeps one (a session opened with the
    /// schema), not the cold session's Airtable, so a big base's tasks are read whole once when the board opens, not
    /// once for the first screen and again when the copy makes itself (10,100 tasks: 101 pages).
    private static func taskSummaryRead(_ session: Session, first: Bool, host: BoardHost) -> Task<TaskSummary, Error>? {
        guard (try? session.taskLayout()) != nil else { return nil }
        return Task {
            var reading = session
            if first, session.upkeep == nil, session.surroundings.copies != nil {
                reading = try await host.opener.session(.schemaFirst)
                reading.upkeep?.beginTurn()
            }
            let layout = try reading.taskLayout()
            var query = ListQuery.picking(Selection<ProjectTask>(formula: nil, keeps: Selection.every))
            query.fields =
                layout.table == nil ? nil : BaseCopies.boardTaskWords.compactMap { layout.fields[$0] }
            var summary = TaskSummary()
            try await reading.reader.listTasks(in: layout.client, query) { page in
                for task in page { summary.count(task) }
            }
            return summary
        }
    }

    /// A read that failed: the board keeps what it shows and says why.
    private static func failed(_ error: Error, first: Bool, into input: AsyncStream<BoardEvent>.Continuation) {
        let message = (error as? AppError)?.message ?? "\(error)"
        input.yield(.read(.failure(AppErrorBox(message: message)), first: first))
    }

    /// What the header says keeps deleted projects off the board.
    package static func deletionsText(_ watch: BaseCopy.DeletionWatch?) -> String {
        switch watch {
        case .webhook?: "by webhook"
        case .idListing?, nil: "every 5 min"
        }
    }
}

/// Each project's tasks counted: how many, how many done, and who they are assigned to.
package struct TaskSummary: Sendable {
    package var byProject: [String: (done: Int, total: Int, assignees: Set<String>)] = [:]

    /// Counts `task` for each project it links to.
    package mutating func count(_ task: ProjectTask) { for project in task.projects { count(task, for: project) } }

    package mutating func count(_ task: ProjectTask, for project: String) {
        var entry = byProject[project] ?? (0, 0, [])
        entry.total += 1
        if task.isComplete { entry.done += 1 }
        if let id = task.assignee?.id { entry.assignees.insert(id) }
        byProject[project] = entry
    }

    /// The cards with their projects' counts.
    package func fill(_ cards: inout [BoardCard]) {
        for index in cards.indices {
            if let tasks = byProject[cards[index].id] {
                cards[index].tasks = (tasks.done, tasks.total)
                cards[index].assignees = tasks.assignees
            }
        }
    }
}
