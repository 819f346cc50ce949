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

/// How the board reads: from the tables it keeps (whole once, then what changed), or, cold or with a view, by one
/// listing as the command line reads.
extension OpenBoard {
    /// Reads the table, one listing at a time: a tick while one is in flight is skipped, so a stalled network never
    /// piles up requests.
    package mutating func startReading(first: Bool) {
        guard !reading else { return }
        reading = true
        if !first { refreshed = [] }
        let host = self.host
        let session = self.session
        let filters = self.filters
        let view = self.view
        let input = self.input
        // Cold, the first screen is read as a one-shot listing beside the schema (one round trip); every read after it,
        // and a warm first one, from the copy.
        if view == nil, host.keepsCopies, !(first && session.inFlight != nil) {
            return readCopy(first: first)
        }
        Task {
            do {
                let since = ProjectDigest.start(
                    of: CalendarDate(dayNumber: host.today.dayNumber - doneDays + 1), in: host.timeZone)
                let terms = [Formula.openOrDoneSince(since, fields: session.layout.fields)].compactMap { $0 }
                let listing = try await session.projectListing(
                    filters, view: view, command: "board", terms: terms)
                let tasks = (try? session.taskLayout()).map {
                    session.taskProgressRead($0, withAssignees: true)
                }
                var all: [BoardCard] = []
                try await listing.read(session.client) { page in
                    let cards = page.map { BoardCard($0) }
                    all += cards
                    input.yield(.page(cards, first: first))
                }
                if let tasks, let byProject = try? await tasks.value {
                    var summary = TaskSummary()
                    for (project, list) in byProject { for task in list { summary.count(task, for: project) } }
                    summary.fill(&all)
                    input.yield(.tasks(summary.byProject))
                }
                input.yield(.read(.success(all), first: first))
            } catch {
                Self.failed(error, first: first, into: input)
            }
        }
    }

    /// Reads from the tables the board keeps: whole the first time (the first page shown as it comes), then only
    /// what changed; the cards are what the listing's formula would pick, by the predicates defined beside it.
    private func readCopy(first: Bool) {
        let host = self.host
        let cold = self.session
        let filters = self.filters
        let input = self.input
        Task {
            do {
                // After a cold start the schema is remembered: the session comes again, now with the copy attached.
                let session = cold.client.copy == nil ? try await host.opener.session(.schemaFirst) : cold
                guard let copy = session.client.copy else { throw AppError.badResponse("the board keeps no copy") }
                copy.beginTurn()
                let fields = session.layout.fields
                let since = ProjectDigest.start(
                    of: CalendarDate(dayNumber: host.today.dayNumber - doneDays + 1), in: host.timeZone)
                let resolved = try await session.resolvingClient(filters, command: "board")
                let people = try await session.peopleMatch(resolved)
                let selection = Formula.selection(resolved, today: host.today, fields: fields)
                // Done lately: asked of Airtable once a day, then seen by the copy as projects turn complete.
                let doneFormula = Formula.completedSince(since, fields: fields)
                func doneLately() async throws -> Set<String> {
                    guard let doneFormula else { return [] }
                    return try await copy.completedIDs(since: since, formula: doneFormula)
                }
                // The first screen does not wait for "done lately": open cards show as their pages come, the done
                // ones once it has answered.
                let asking = Task { try await doneLately() }
                let picked: @Sendable (Project) -> Bool = { selection.keeps($0) && (people?($0) ?? true) }
                let projects = try await copy.projects(where: picked) { page in
                    guard first else { return }
                    input.yield(.page(page.filter { !$0.isComplete && picked($0) }.map { BoardCard($0) }, first: true))
                }
                _ = try await asking.value
                let done = try await doneLately()
                let shown = projects.filter { !$0.isComplete || done.contains($0.id) }
                if first {
                    let doneCards = shown.filter(\.isComplete).map { BoardCard($0) }
                    if !doneCards.isEmpty { input.yield(.page(doneCards, first: true)) }
                }
                var all = shown.map { BoardCard($0) }
                input.yield(.deletions(Self.deletionsText(await copy.watch)))
                if (try? session.taskLayout()) != nil,
                    let summary = try? await copy.summarizeTasks(into: TaskSummary(), { $0.count($1) })
                {
                    summary.fill(&all)
                    input.yield(.tasks(summary.byProject))
                }
                input.yield(.read(.success(all), first: first))
            } catch {
                Self.failed(error, first: first, into: input)
            }
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

extension Session {
    /// What the board's bottom line says while the budget is not shared or not at its pace: the team's Redis cannot
    /// be used, or a 429 slowed every process for a while. Nil when all is well.
    package func sharingTrouble() -> String? {
        let coordination = surroundings.coordination
        if let down = coordination.unavailable { return down.firstLetterUppercased + "." }
        guard let pace = coordination.pacer(for: configuration.budgetOwner).currentPace(), pace.isSlowed
        else { return nil }
        return "Pace " + pace.words + "."
    }
}
