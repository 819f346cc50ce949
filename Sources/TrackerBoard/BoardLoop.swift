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
import TrackerNetwork
import TrackerOperations
import TrackerSystem

/// What the executable gives the board: sessions opened with the board's copies of the tables, the clock, the
/// terminal's settings, and how to reach the browser and the process's end.
package struct BoardHost: Sendable {
    /// Opens a session for each read and each write; the configuration was read once, by the executable.
    package var opener: SessionOpener
    package var today: CalendarDate
    package var now: @Sendable () -> Date
    package var timeZone: Zone
    /// Box-drawing and other UTF-8 glyphs, where the locale's characters are UTF-8.
    package var unicode: Bool
    package var colour: Bool
    /// Hands an address to the user's browser; false when there is no browser to start.
    package var openInBrowser: @Sendable (String) -> Bool
    /// Registers what must run before the process ends on a signal (the terminal given back).
    package var beforeEnding: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// What was said on stderr meanwhile (a warning the full screen would hide), for the bottom line.
    package var said: SaidLine
    /// The table's name, when the configuration is read before the session opens: the board shows at once.
    package var table: String?
    /// Starts loading what requests go through, once the first frame is drawn (loading it holds up the process).
    package var loadTransport: @Sendable () -> Void = {}

    /// Each value given.
    package init(
        opener: SessionOpener, today: CalendarDate, now: @escaping @Sendable () -> Date, timeZone: Zone,
        unicode: Bool, colour: Bool, openInBrowser: @escaping @Sendable (String) -> Bool,
        beforeEnding: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void, said: SaidLine
    ) {
        self.opener = opener
        self.today = today
        self.now = now
        self.timeZone = timeZone
        self.unicode = unicode
        self.colour = colour
        self.openInBrowser = openInBrowser
        self.beforeEnding = beforeEnding
        self.said = said
    }
}

extension Board {
    /// Takes the terminal, reads the table page by page into columns, and answers keys until `q`.
    package func run(in host: BoardHost) async throws {
        var filters = filters
        let startsMine = filters.mine
        filters.mine = false
        let code = tracker_terminal_take(STDOUT_FILENO)
        guard code == 0 else { throw AppError.output("cannot take the terminal: \(POSIX.describe(code))") }
        defer { tracker_terminal_give_back() }
        // Whichever handler hears SIGTERM or SIGHUP first, the terminal is given back before tracker ends.
        host.beforeEnding { tracker_terminal_give_back() }
        // The board shows at once, before its session opens (the schema may take a round trip, or a wait for the
        // teammate's machine reading it): the first cards then follow the first page, not a frame drawn after it.
        var model = BoardModel(today: host.today)
        model.mineOnly = startsMine
        let shown = host.table.map { OpenBoard.firstFrame(of: model, table: $0, host: host) }
        host.loadTransport()
        let session = try await host.opener.session(SessionOpening(readingBeside: true, evenWithCopy: true))
        var board = OpenBoard(host: host, session: session, filters: filters, view: view, shown: shown)
        board.model = model
        try await board.run(every: everySeconds)
    }
}

/// One open board: its model, the screen it last drew, and the work it has in flight.
package struct OpenBoard {
    package let host: BoardHost
    package let session: Session
    package let filters: ProjectFilters
    package let view: String?
    package let unicode: Bool
    package let said: SaidLine
    package var model: BoardModel
    package var writer: FrameWriter
    package let events: AsyncStream<BoardEvent>
    package let input: AsyncStream<BoardEvent>.Continuation
    package var reading = false
    private var lastDraw = 0.0
    private var drawPending = false
    var askingMe = false
    package var refreshed: [BoardCard] = []
    /// Whether anyone looks, and how often the board may check for changes.
    package let watch = Locked(BoardWatch(every: 60))

    package init(host: BoardHost, session: Session, filters: ProjectFilters, view: String?, shown: FirstFrame? = nil) {
        self.host = host
        self.session = session
        self.filters = filters
        self.view = view
        self.unicode = host.unicode
        self.said = host.said
        model = BoardModel(today: host.today)
        writer = shown?.writer ?? FrameWriter(colour: host.colour)
        lastDraw = shown?.drawnAt ?? 0
        (events, input) = AsyncStream.makeStream(of: BoardEvent.self)
    }

    package var table: String { session.configuration.table }

    package mutating func run(every: Int) async throws {
        BoardTerminal.readKeys(into: input)
        let resize = BoardTerminal.watchResize(into: input)
        defer { resize.cancel() }
        let input = self.input
        watch.withLock { $0 = BoardWatch(every: Double(every)) }
        let ticker = BoardWatch.ticking(
            every: Double(every), watch: watch, usage: session.client.usage, configuration: session.configuration
        ) { input.yield(.tick) }
        defer { ticker.cancel() }
        // A refresh applied to the team's copy by another process is drawn at once, without a key.
        session.surroundings.copies?.whenTeamChanges { input.yield(.tick) }
        // A warning said by a task in the background (the team's copy's poller) is drawn at once.
        said.whenSaid { input.yield(.draw) }
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

    package enum Outcome { case keepGoing, quit, interrupted }

    private mutating func handle(_ event: BoardEvent) async throws -> Outcome {
        switch event {
        case .keys(let keys):
            // Keys and focus are someone looking: a board that had slowed checks for changes at once, and the team's
            // copy it follows hears of the look.
            // (The check itself is the ticker's, within a quarter of a second.)
            for key in keys { _ = watch.withLock { $0.heard(key) } }
            if keys.contains(where: { $0 != .focusOut }) {
                let copies = session.surroundings.copies
                Task { await copies?.looked() }
            }
            for key in keys where key != .focusIn && key != .focusOut {
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
            // Focus is looking: the team's copy the board follows hears of it each check.
            if watch.withLock({ $0.focused == true }) {
                let copies = session.surroundings.copies
                Task { await copies?.looked() }
            }
            RequestPurpose.$current.withValue(.background) { startReading(first: false) }
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
                // What waits for approval, read after each read of the table (the schema known by then): the header
                // counts it.
                readApprovals()
                model.warning = session.sharingTrouble()
                model.lastRead = Self.clock(host.now(), zone: host.timeZone)
                model.today = CalendarDate(host.now(), in: host.timeZone)
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
        case .readsFrom(let source):
            model.readsFrom = source
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
        case .approvals(let waiting):
            model.approvals = waiting
            draw()
        case .draw:
            drawPending = false
            draw()
        }
        return .keepGoing
    }

    // MARK: - Drawing

    package var screen: BoardScreen { Self.screen(unicode: unicode, table: table) }

    /// The screen at the terminal's size now.
    static func screen(unicode: Bool, table: String) -> BoardScreen {
        let (width, height) = BoardTerminal.size()
        return BoardScreen(width: width, height: height, unicode: unicode, table: table)
    }

    /// Draws now: one write of the lines that changed. What a command said on stderr meanwhile (a warning the full
    /// screen would hide) is shown on the bottom line first.
    private mutating func draw() {
        if let line = said.take() { model.warning = line }
        let lines = screen.render(&model)
        let bytes = writer.frame(lines)
        // A frame that changed nothing is not a draw: the first cards follow the board's first frame as soon as
        // pages pouring in may be drawn.
        guard !bytes.isEmpty else { return }
        lastDraw = MonotonicClock.now()
        _ = FileDescriptorWriter.write(bytes, to: STDOUT_FILENO)
    }

    /// Draws at most ten times a second while pages pour in; a frame held back is drawn by the `.draw` it sends as soon
    /// as a tenth of a second has passed since the last draw (not a whole tenth after it was held).
    private mutating func drawSoon() {
        let since = MonotonicClock.now() - lastDraw
        if since >= 0.1 { return draw() }
        guard !drawPending else { return }
        drawPending = true
        let input = self.input
        let wait = UInt64((0.1 - since) * 1_000_000_000)
        Task {
            try? await Task.sleep(nanoseconds: wait)
            input.yield(.draw)
        }
    }

    package static let reading = "Reading the table…"
    package static let alreadyReading = "Already reading the table…"

    package static func clock(_ date: Date, zone: Zone) -> String {
        let minutes = zone.local(date).seconds / 60
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return two(minutes / 60) + ":" + two(minutes % 60)
    }
}
