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
import TrackerOperations
import TrackerSystem

extension Runner {
    /// `tracker board`: takes the terminal, reads the table page by page into columns, and answers keys until `q`.
    func board(_ options: Board) async throws {
        guard context.isStdinTerminal, output.isStdoutTerminal else {
            throw AppError.usage("board needs a terminal; try tracker list or tracker status", command: "board")
        }
        // What the commands say on stderr would tear the screen: it goes to the bottom line instead, and on to stderr
        // too when that is not the terminal (`--verbose 2> file` keeps every request).
        let said = Locked<String?>(nil)
        let stderrElsewhere = !output.isStderrTerminal
        var quiet = context
        // The board keeps the tables and reads only what changed at each refresh, unless a view picks the cards
        // (Airtable alone knows a view's filters).
        if options.view == nil { quiet.copies = .board }
        quiet.output = Output(
            standardOutput: output.standardOutput,
            standardError: { [output] text in
                if stderrElsewhere { output.standardError(text) }
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

/// One open board: its model, the screen it last drew, and the work it has in flight.
struct BoardSession {
    let runner: Runner
    let base: Session
    let filters: ProjectFilters
    let view: String?
    let unicode: Bool
    let said: Locked<String?>
    var model: BoardModel
    var writer: FrameWriter
    let events: AsyncStream<BoardEvent>
    let input: AsyncStream<BoardEvent>.Continuation
    var reading = false
    private var lastDraw = 0.0
    private var drawPending = false
    private var askingMe = false
    var refreshed: [BoardCard] = []

    init(
        runner: Runner, base: Session, filters: ProjectFilters, view: String?, unicode: Bool, colour: Bool,
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
                    // Ctrl-Z: the terminal given back, the process stopped until `fg`, the terminal taken again.
                    tracker_terminal_give_back()
                    POSIX.stopUntilContinued()
                    tracker_terminal_resume()
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
                model.warning = runner.sharingTrouble(base)
                model.lastRead = Self.clock(runner.context.now(), zone: runner.context.timeZone)
                model.today = CalendarDate(runner.context.now(), in: runner.context.timeZone)
            case .failure(let error):
                model.readFailure = "Could not read the table: \(error.message)"
            }
            refreshed = []
            model.isLoading = false
            // "Reading the table…" was for this read: done, it goes (it stayed until a key before).
            if model.message == Self.reading || model.message == Self.alreadyReading { model.message = nil }
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

    /// Draws now: one write of the lines that changed. What a command said on stderr meanwhile (a warning the full
    /// screen would hide) is shown on the bottom line first.
    private mutating func draw() {
        if let line = said.withLock({ line in
            defer { line = nil }; return line
        }) {
            let words = line.hasPrefix("warning: ") ? line.dropFirst(9) : Substring(line)
            model.warning = words.firstLetterUppercased
        }
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

    static let reading = "Reading the table…"
    static let alreadyReading = "Already reading the table…"

    static func clock(_ date: Date, zone: Zone) -> String {
        let minutes = zone.local(date).seconds / 60
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return two(minutes / 60) + ":" + two(minutes % 60)
    }

    // MARK: - Effects

    /// Carries out what a key asked for; a write shows at once and is undone if Airtable refuses it.
    private mutating func carryOut(_ effect: BoardModel.Effect) {
        switch effect {
        case .none, .quit, .suspend, .redrawAll: return
        case .refresh:
            model.message = reading ? Self.alreadyReading : Self.reading
            startReading(first: false)
        case .openCard(let id): openCard(id)
        case .openInBrowser(let id):
            // The address is asked for (`open --url`); the browser is started here, so a machine without one says
            // what to set rather than claiming it opened.
            let context = runner.context
            call(
                ["open", "--url", "--", id],
                success: { printed in
                    let address = printed.split(separator: "\n").first.map(String.init) ?? ""
                    return context.openInBrowser(address)
                        ? "Opened in the browser."
                        : "No browser to open \(address) with; set BROWSER, or install xdg-utils."
                }, undo: nil)
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
                detail = CardDetail.parse(id: id, text: captured.text, tasks: notes.tasks)
            } catch {
                detail.failure = (error as? AppError)?.message ?? "\(error)"
            }
            detail.isLoading = false
            input.yield(.card(detail))
        }
    }
}
