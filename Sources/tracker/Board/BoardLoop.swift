#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CTerminal
import TrackerAPI
import TrackerModel
import TrackerSystem

/// The days the Done column reaches back.
private let doneDays = 14

extension Runner {
    /// `tracker board`: takes the terminal, reads the table page by page into columns, and answers keys until `q`.
    func board(_ options: Board) async throws {
        guard context.isStdinTerminal, output.isStdoutTerminal else {
            throw AppError.usage("board needs a terminal; try tracker list or tracker status", command: "board")
        }
        // What the commands say on stderr would tear the screen: it goes to the bottom line instead.
        let said = Locked<String?>(nil)
        var quiet = context
        // The board keeps the tables and reads only what changed at each refresh, unless a view picks the cards
        // (Airtable alone knows a view's filters).
        if options.view == nil { quiet.copies = .board }
        quiet.output = Output(
            standardOutput: output.standardOutput,
            standardError: { text in
                let line = text.split(separator: "\n").first.map(String.init) ?? ""
                said.withLock { $0 = line.hasPrefix("tracker: ") ? String(line.dropFirst(9)) : line }
            }, isStdoutTerminal: true, isStderrTerminal: false, terminalWidth: output.terminalWidth)
        var filters = options.filters
        let startsMine = filters.mine
        filters.mine = false
        let inner = Runner(invocation: invocation, context: quiet, today: today)
        let base = try await inner.prepareBase(readingBeside: true, evenWithCopy: true)
        let unicode = TimelineChart.Glyphs.localeIsUTF8(context.environment)
        let colour = invocation.globals.color.isEnabled(isTerminal: true, environment: context.environment)
        let code = tracker_terminal_take(STDOUT_FILENO)
        guard code == 0 else { throw AppError.output("cannot take the terminal: \(POSIX.describe(code))") }
        defer { tracker_terminal_give_back() }
        // Whichever handler hears SIGTERM or SIGHUP first, the terminal is given back before tracker ends.
        context.interruption.beforeEnding { tracker_terminal_give_back() }
        var session = BoardSession(
            runner: inner, base: base, filters: filters, view: options.view, unicode: unicode, colour: colour,
            said: said)
        session.model.mineOnly = startsMine
        try await session.run(every: options.everySeconds)
    }
}

/// Each project's tasks counted: how many, how many done, and who they are assigned to.
struct TaskSummary: Sendable {
    var byProject: [String: (done: Int, total: Int, assignees: Set<String>)] = [:]

    /// Counts `task` for each project it links to.
    mutating func count(_ task: ProjectTask) { for project in task.projects { count(task, for: project) } }

    mutating func count(_ task: ProjectTask, for project: String) {
        var entry = byProject[project] ?? (0, 0, [])
        entry.total += 1
        if task.isComplete { entry.done += 1 }
        if let id = task.assignee?.id { entry.assignees.insert(id) }
        byProject[project] = entry
    }

    /// The cards with their projects' counts.
    func fill(_ cards: inout [BoardCard]) {
        for index in cards.indices {
            if let tasks = byProject[cards[index].id] {
                cards[index].tasks = (tasks.done, tasks.total)
                cards[index].assignees = tasks.assignees
            }
        }
    }
}

/// One open board: its model, the screen it last drew, and the work it has in flight.
struct BoardSession {
    let runner: Runner
    let base: Runner.Base
    let filters: ProjectFilters
    let view: String?
    let unicode: Bool
    let said: Locked<String?>
    var model: BoardModel
    var writer: FrameWriter
    let events: AsyncStream<BoardEvent>
    let input: AsyncStream<BoardEvent>.Continuation
    private var reading = false
    private var lastDraw = 0.0
    private var drawPending = false
    private var askingMe = false
    private var refreshed: [BoardCard] = []

    init(
        runner: Runner, base: Runner.Base, filters: ProjectFilters, view: String?, unicode: Bool, colour: Bool,
        said: Locked<String?>
    ) {
        self.runner = runner
        self.base = base
        self.filters = filters
        self.view = view
        self.unicode = unicode
        self.said = said
        model = BoardModel(today: runner.today)
        writer = FrameWriter(colour: colour)
        (events, input) = AsyncStream.makeStream(of: BoardEvent.self)
    }

    var table: String { base.configuration.table }

    mutating func run(every: Int) async throws {
        BoardTerminal.readKeys(into: input)
        let resize = BoardTerminal.watchResize(into: input)
        defer { resize.cancel() }
        let input = self.input
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(every) * 1_000_000_000)
                if Task.isCancelled { return }
                input.yield(.tick)
            }
        }
        defer { ticker.cancel() }
        startReading(first: true)
        if model.mineOnly { findMe() }
        draw()
        for await event in events {
            switch try await handle(event) {
            case .keepGoing: continue
            case .quit: return
            case .interrupted: throw AppError.exited(.interrupted)
            }
        }
    }

    enum Outcome { case keepGoing, quit, interrupted }

    private mutating func handle(_ event: BoardEvent) async throws -> Outcome {
        switch event {
        case .keys(let keys):
            for key in keys {
                let effect = model.handle(key, pageSize: screen.cardsShown)
                switch effect {
                case .quit: return key == .interrupt ? .interrupted : .quit
                case .suspend:
                    tracker_terminal_suspend()
                    writer.invalidate()
                case .redrawAll: writer.invalidate()
                default: carryOut(effect)
                }
            }
            if model.mineOnly && model.me == nil { findMe() }
            draw()
        case .inputEnded:
            throw AppError.output("the terminal went away")
        case .resized:
            writer.invalidate()
            draw()
        case .tick:
            startReading(first: false)
        case .page(let cards, let first):
            if first {
                model.add(cards)
                drawSoon()
            } else {
                refreshed += cards
            }
        case .read(let result, let first):
            reading = false
            switch result {
            case .success(let all):
                if !first { model.replace(with: all) }
                model.readFailure = nil
                model.lastRead = Self.clock(runner.context.now(), zone: runner.context.timeZone)
                model.today = CalendarDate(runner.context.now(), in: runner.context.timeZone)
            case .failure(let error):
                model.readFailure = "Could not read the table: \(error.message)"
            }
            refreshed = []
            model.isLoading = false
            draw()
        case .tasks(let byProject):
            for (id, tasks) in byProject {
                model.update(id) {
                    $0.tasks = (tasks.done, tasks.total)
                    $0.assignees = tasks.assignees
                }
            }
            drawSoon()
        case .deletions(let text):
            model.deletionsSeen = text
        case .me(let me):
            model.me = me
            if me == nil { model.message = "Could not tell who you are; \"mine\" shows nothing." }
            draw()
        case .card(let detail):
            if model.screen == .card, model.card?.id == detail.id {
                var detail = detail
                detail.selectedTask = min(model.card?.selectedTask ?? 0, max(0, detail.tasks.count - 1))
                model.card = detail
            }
            draw()
        case .written(let message, let undo):
            model.message = message
            switch undo {
            case .project(let id, let complete)?: model.update(id) { $0.complete = complete }
            case .task(let projectID, let taskID, let done)?: setTask(taskID, of: projectID, done: done)
            case nil: break
            }
            draw()
        case .draw:
            drawPending = false
            draw()
        }
        return .keepGoing
    }

    // MARK: - Drawing

    var screen: BoardScreen {
        let (width, height) = BoardTerminal.size()
        return BoardScreen(width: width, height: height, unicode: unicode, table: table)
    }

    /// Draws now: one write of the lines that changed.
    private mutating func draw() {
        let lines = screen.render(&model)
        let bytes = writer.frame(lines)
        lastDraw = MonotonicClock.now()
        guard !bytes.isEmpty else { return }
        _ = FileDescriptorWriter.write(bytes, to: STDOUT_FILENO)
    }

    /// Draws at most ten times a second while pages pour in; a frame held back is drawn by the `.draw` it sends.
    private mutating func drawSoon() {
        if MonotonicClock.now() - lastDraw >= 0.1 { return draw() }
        guard !drawPending else { return }
        drawPending = true
        let input = self.input
        Task {
            try? await Task.sleep(nanoseconds: 100_000_000)
            input.yield(.draw)
        }
    }

    static func clock(_ date: Date, zone: Zone) -> String {
        let minutes = zone.local(date).seconds / 60
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return two(minutes / 60) + ":" + two(minutes % 60)
    }

    // MARK: - Reading

    /// Reads the table, one listing at a time: a tick while one is in flight is skipped, so a stalled network never
    /// piles up requests.
    private mutating func startReading(first: Bool) {
        guard !reading else { return }
        reading = true
        if !first { refreshed = [] }
        let runner = self.runner
        let base = self.base
        let filters = self.filters
        let view = self.view
        let input = self.input
        // Cold, the first screen is read as a one-shot listing beside the schema (one round trip); every read after it,
        // and a warm first one, from the copy.
        if view == nil, runner.context.copies != nil, !(first && base.inFlight != nil) {
            return readCopy(first: first)
        }
        Task {
            do {
                let since = ProjectDigest.start(
                    of: CalendarDate(dayNumber: runner.today.dayNumber - doneDays + 1), in: runner.context.timeZone)
                let terms = [Formula.openOrDoneSince(since, fields: base.layout.fields)].compactMap { $0 }
                let listing = try await runner.projectListing(
                    filters, view: view, base: base, command: "board", terms: terms)
                let tasks = (try? runner.taskLayout(base)).map {
                    runner.taskProgressRead($0, base: base, withAssignees: true)
                }
                var all: [BoardCard] = []
                try await listing.read(base.client) { page in
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
                let message = (error as? AppError)?.message ?? "\(error)"
                input.yield(.read(.failure(AppErrorBox(message: message)), first: first))
            }
        }
    }

    /// Reads from the tables the board keeps: whole the first time (the first page shown as it comes), then only
    /// what changed; the cards are what the listing's formula would pick, by the predicates defined beside it.
    private func readCopy(first: Bool) {
        let runner = self.runner
        let cold = self.base
        let filters = self.filters
        let input = self.input
        Task {
            do {
                // After a cold start the schema is remembered: the base comes again, now with the copy attached.
                let base = cold.client.copy == nil ? try await runner.prepareBase() : cold
                guard let copy = base.client.copy else { throw AppError.badResponse("the board keeps no copy") }
                copy.beginTurn()
                let fields = base.layout.fields
                let since = ProjectDigest.start(
                    of: CalendarDate(dayNumber: runner.today.dayNumber - doneDays + 1), in: runner.context.timeZone)
                let resolved = try await runner.resolvingClient(filters, base: base, command: "board")
                let people = try await runner.peopleMatch(resolved, base: base)
                let selection = Formula.selection(resolved, today: runner.today, fields: fields)
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
                if (try? runner.taskLayout(base)) != nil,
                    let summary = try? await copy.summarizeTasks(into: TaskSummary(), { $0.count($1) })
                {
                    summary.fill(&all)
                    input.yield(.tasks(summary.byProject))
                }
                input.yield(.read(.success(all), first: first))
            } catch {
                let message = (error as? AppError)?.message ?? "\(error)"
                input.yield(.read(.failure(AppErrorBox(message: message)), first: first))
            }
        }
    }

    /// What the header says keeps deleted projects off the board.
    static func deletionsText(_ watch: BaseCopy.DeletionWatch?) -> String {
        switch watch {
        case .webhook?: "by webhook"
        case .idListing?, nil: "every 5 min"
        }
    }

    // MARK: - Effects

    /// Carries out what a key asked for; a write shows at once and is undone if Airtable refuses it.
    private mutating func carryOut(_ effect: BoardModel.Effect) {
        switch effect {
        case .none, .quit, .suspend, .redrawAll: return
        case .refresh:
            model.message = reading ? "Already reading the table…" : "Reading the table…"
            startReading(first: false)
        case .openCard(let id): openCard(id)
        case .openInBrowser(let id):
            call(["open", "--", id], success: { _ in "Opened in the browser." }, undo: nil)
        case .setProjectDone(let id, let name, let done):
            let was = model.cards[id]?.complete ?? !done
            model.update(id) { $0.complete = done }
            model.message = "Marking \"\(name)\" \(done ? "done" : "open")…"
            call(
                [done ? "done" : "reopen", "--", id],
                success: { _ in "Marked \"\(name)\" \(done ? "done" : "open again")." },
                undo: .project(id, complete: was), failing: "Could not mark \"\(name)\" \(done ? "done" : "open")")
        case .setTaskDone(let projectID, let taskID, let name, let done):
            setTask(taskID, of: projectID, done: done)
            model.message = "Ticking \"\(name)\"…"
            call(
                ["task", done ? "done" : "reopen", "--", taskID],
                success: { _ in done ? "Ticked \"\(name)\" done." : "\"\(name)\" is open again." },
                undo: .task(projectID: projectID, taskID: taskID, done: !done),
                failing: "Could not tick \"\(name)\"")
        case .comment(let id, let name, let text):
            model.message = "Sending the comment…"
            let reopen = model.screen == .card && model.card?.id == id
            call(
                ["comment", "--", id, text], success: { _ in "Commented on \"\(name)\"." }, undo: nil,
                failing: "Could not comment on \"\(name)\"", then: reopen ? id : nil)
        }
    }

    /// A task ticked or opened on screen: on the open card and in its card's count.
    private mutating func setTask(_ taskID: String, of projectID: String, done: Bool) {
        if var card = model.card, card.id == projectID, let index = card.tasks.firstIndex(where: { $0.id == taskID }) {
            let was = card.tasks[index].done
            card.tasks[index].done = done
            model.card = card
            if was != done {
                model.update(projectID) { card in
                    if let tasks = card.tasks { card.tasks = (tasks.done + (done ? 1 : -1), tasks.total) }
                }
            }
        }
    }

    /// Runs one command as the command line would, once: a key press is never sent twice.
    private func call(
        _ line: [String], success: @escaping @Sendable (String) -> String, undo: BoardUndo?,
        failing: String = "Could not do it", then reopen: String? = nil
    ) {
        let runner = self.runner
        let input = self.input
        let said = self.said
        Task {
            let captured = CapturedOutput(keeping: nil)
            do {
                try await CommandCall.run(
                    line, context: runner.context, globals: runner.invocation.globals, into: captured)
                input.yield(.written(message: success(captured.text), undo: nil))
                if let reopen { Self.readCard(reopen, runner: runner, input: input, width: BoardTerminal.size().width) }
            } catch {
                let message = (error as? AppError)?.message ?? "\(error)"
                said.withLock { $0 = nil }
                input.yield(.written(message: "\(failing): \(message)", undo: undo))
            }
        }
    }

    /// Asks once who the token's user is, for "mine" (remembered with the schema after that).
    private mutating func findMe() {
        guard !askingMe else { return }
        askingMe = true
        let knowledge = base.knowledge
        let input = self.input
        Task {
            let me = try? await knowledge.me()
            input.yield(.me(me))
        }
    }

    private mutating func openCard(_ id: String) {
        Self.readCard(id, runner: runner, input: input, width: screen.width)
    }

    /// Reads a card as `show` shows it on a terminal of the board's width, its tasks as the Tasks table has them.
    static func readCard(_ id: String, runner: Runner, input: AsyncStream<BoardEvent>.Continuation, width: Int) {
        Task {
            let captured = CapturedOutput(keeping: nil)
            let notes = CommandNotes()
            var globals = runner.invocation.globals
            globals.color = .never
            var detail = CardDetail(id: id, name: id)
            do {
                try await CommandCall.run(
                    ["show", "--comments", "--", id], context: runner.context, globals: globals, into: captured,
                    notes: notes, terminalWidth: max(20, width - 2))
                detail = CardDetail.parse(id: id, text: captured.text, tasks: notes.value("tasks"))
            } catch {
                detail.failure = (error as? AppError)?.message ?? "\(error)"
            }
            detail.isLoading = false
            input.yield(.card(detail))
        }
    }
}
