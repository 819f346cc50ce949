#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// One base as a command (or a face, for its whole life) works with it: the configuration, the client, the table's
/// layout (confirmed, or assumed while the schema read is in flight), the reader (Airtable, or the face's copy, chosen
/// once when the session is opened) and the engine shared with other tracker processes.
///
/// The rules that keep a write safe are the session's, not a command's: a write goes through `writing` (a write the
/// schema contradicts is checked again and reported as the value that is wrong), a create through `create` (sent at
/// most once, its lock confirmed by the client right before each attempt), and `finish` waits for the schema read in
/// flight, so it is remembered and what was assumed is confirmed before the outcome is shown.
///
/// Its configuration, client, reader and layout are set in this file alone (opening it, and the schema confirmed or
/// read again): an operation reads them and cannot put another client or reader in their place.
package struct Session: Sendable {
    package private(set) var configuration: Configuration
    /// Airtable, its fields named as this base has them: what only Airtable answers (names matched by formula,
    /// comments, the schema). It writes only in the session's own write routes (`Writes`): its write methods are
    /// visible to no other file.
    package private(set) var client: ProjectAPIClient
    /// Where listings and records by id are answered, chosen once when the session opened: Airtable, or the face's
    /// copy of the tables.
    package private(set) var reader: any RecordReader
    /// Told each write's answer (by the write routes alone): the face's copy, and the team's copies through Redis.
    private(set) var observer: any WriteObserver = NoWriteObserver()
    /// The upkeep of the copy the reader is, when it is one: the face's to do (a turn, deletions, whose copy).
    package private(set) var upkeep: (any CopyUpkeep)? = nil
    package private(set) var knowledge: BaseKnowledge
    package private(set) var layout: TableLayout
    /// The schema read going out beside the work, when the layout above is only assumed.
    package private(set) var inFlight: SchemaInFlight? = nil
    /// What the session stands in: the day, the clock, the caches, the engine.
    package let surroundings: SessionSurroundings
    /// Whether this run may still be run again with the schema (shared with the face that runs the command).
    package let attempt: SchemaAttempt
    /// What the journal calls the work this session does: the operation's command (or the face's tool).
    package private(set) var activity = "write"
    /// The entry every write of this session joins (`asOneEntry`); nil: each write is an entry of its own.
    var oneEntry: JournalRecorder? = nil

    /// This session doing `activity` (the journal's name for its writes).
    package func doing(_ activity: String) -> Session {
        var named = self
        named.activity = activity
        return named
    }

    /// The day the command runs on, read once: a listing past midnight sees one date.
    package var today: CalendarDate { surroundings.today }

    /// The layout confirmed by the schema read in flight, or the one in use: nothing is shown or written out before.
    package func confirmedLayout() async throws -> TableLayout { try await inFlight?.confirmed() ?? layout }

    /// This session with the layout the schema read in flight confirms (the one in use when none is in flight); with
    /// `settling`, the read in flight is done with too: what comes next checks values against the schema itself.
    package func withConfirmedLayout(settling: Bool = false) async throws -> Session {
        var confirmed = self
        confirmed.layout = try await confirmedLayout()
        if settling { confirmed.inFlight = nil }
        return confirmed
    }

    /// This session with the schema read again (or the read in flight, awaited): its layout, client and reader name the
    /// fields as the base now has them. Nil when the read in flight failed.
    func withFreshSchema() async throws -> Session? {
        let fresh = inFlight != nil ? try? await knowledge.layout() : try await knowledge.refreshed()
        guard let fresh else { return nil }
        var updated = self
        updated.layout = fresh
        updated.inFlight = nil
        updated.client = client.using(fresh.fields)
        updated.reader = reader.naming(fresh.fields)
        return updated
    }

    /// Checks values against the base as this session last saw it.
    package func checker(command: String) async throws -> ValueChecker {
        // With the schema read in flight, the assumed layout stands until a value needs the schema: what it could have
        // refused, Airtable refuses (no typecast), and the command then runs again with the schema.
        let layout = inFlight == nil ? try await knowledge.layout() : self.layout
        return ValueChecker(
            client: client.using(layout.fields), knowledge: knowledge, layout: layout, command: command,
            today: today, timeZone: surroundings.timeZone)
    }

    /// Waits for a schema read still in flight after a write, so it is remembered for the next command; once Airtable
    /// has accepted the write, what the schema says no longer changes it.
    package func finish() async { _ = try? await confirmedLayout() }

    /// The notes (or a comment) a command was given: inline, from a file (`flag` names it), or from standard input.
    package func readNotes(_ source: NotesSource?, command: String, flag: String = "--notes-file") throws -> String? {
        try surroundings.readNotes(source, command, flag)
    }

    /// Asks before deleting (`verb`: what is done, `remove` files `from` a project), as the face can; throws unless the
    /// person agreed.
    package func confirmDeleting(
        _ lines: [String], noun: String, command: String, verb: String = "delete", from: String? = nil
    ) throws {
        try surroundings.confirmsDeleting(lines, noun, command, verb, from)
    }

    /// Where nobody can be asked: `--yes` is needed, and nothing was done.
    package static func cannotAsk(command: String, verb: String) -> AppError {
        let (doing, done, say): (String, String, String) =
            switch verb {
            case "make": ("writing", "written", "approve")
            case "undo": ("undoing", "undone", verb)
            case "remove": ("removing", "removed", verb)
            default: ("deleting", "deleted", verb)
            }
        return AppError.usage(
            "\(command) asks before \(doing), and stdin is not a terminal; pass --yes to \(say) without asking (nothing was \(done))",
            command: String(command.prefix { $0 != " " }))
    }

    /// What the board's bottom line says while the budget is not shared or not at its pace: the team's Redis cannot
    /// be used, or a 429 slowed every process for a while. Nil when all is well.
    package func sharingTrouble() -> String? {
        let coordination = surroundings.coordination
        if let down = coordination.unavailable { return down.firstLetterUppercased + "." }
        guard let pace = coordination.pacer(for: configuration.budgetOwner).currentPace(), pace.isSlowed
        else { return nil }
        return "Pace " + pace.words + "."
    }

    /// Answers that mean the base changed since its schema was read, and a field that has become computed since
    /// (recorded: `Field "X" cannot accept a value because the field is computed`).
    package static func contradictsMemory(_ error: AppError) -> Bool {
        switch error {
        case .missingField: return true
        case .http(422, let body):
            if body.type == "INVALID_VALUE_FOR_COLUMN", body.message?.contains("because the field is computed") == true
            {
                return true
            }
            return [
                "UNKNOWN_FIELD_NAME", "INVALID_MULTIPLE_CHOICE_OPTIONS", "ROW_DOES_NOT_EXIST", "VIEW_NAME_NOT_FOUND",
            ]
            .contains(body.type ?? "")
        default: return false
        }
    }
}

/// What a face gives every session it opens: the day, the clocks, where things are remembered, how processes share
/// the base, and the copy of the tables a face that stays keeps.
package struct SessionSurroundings: Sendable {
    package var today: CalendarDate
    package var timeZone: Zone
    /// The wall clock, for how old a remembered schema is.
    package var now: @Sendable () -> Date
    /// The clock and the sleep a lock waits with.
    package var network: NetworkHelper.Environment
    /// Where the schema and resolved names are remembered between commands; nil remembers nothing.
    package var cache: CacheDirectory?
    /// Where `changes` keeps what it saw between runs; nil where there is nowhere (no HOME, no XDG_STATE_HOME).
    package var state: CacheDirectory? = nil
    /// The engine shared with other tracker processes (the machine's, or the team's Redis).
    package var coordination: any Coordination
    /// The tables a face that stays keeps between its calls; nil for a one-shot command, which reads Airtable.
    package var copies: BaseCopies?
    /// The token the face's copies keep themselves up to date with when the session speaks as someone else (`serve`:
    /// the server's own, whoever asks); nil: the session's.
    package var copyToken: String? = nil
    /// A one-shot read answers from the team's copy refreshed within this many seconds; nil reads Airtable.
    package var maxAge: Double? = nil
    /// Says a line of tracker's (a warning) where the face says such things.
    package var warn: @Sendable (_ line: String) -> Void = { _ in }
    /// Where every write is journaled, and who writes; off where no face set it up.
    package var journal: Journaling = .none
    /// Starts loading the transport ahead of a request this session learned late it will send (the team's poller).
    package var prepareNetwork: @Sendable () -> Void = {}
    /// Asks the person whether the one `noun` whose name holds every word typed is the one meant (a terminal's
    /// `[y/N]`); nil where nobody can be asked, and a guess is refused.
    package var confirmsGuess: (@Sendable (_ noun: String, _ name: String) -> Bool)? = nil
    /// Shows what will be deleted (a line a record) and asks; throws unless the person agreed. The default, where
    /// nobody can be asked, refuses: the face must be told `--yes`.
    package var confirmsDeleting:
        @Sendable (_ lines: [String], _ noun: String, _ command: String, _ verb: String, _ from: String?) throws -> Void =
            { _, _, command, verb, _ in throw Session.cannotAsk(command: command, verb: verb) }
    /// The person's editor, for `edit`; nil where there is none, and `edit` is refused.
    package var editor: FormEditor? = nil
    /// Reads notes or a comment from where the person said (inline, a file, standard input), as the face can; the
    /// default reads text given inline only.
    package var readNotes: @Sendable (_ source: NotesSource?, _ command: String, _ flag: String) throws -> String? = {
        source, command, _ in
        guard case .text(let text)? = source else {
            if source == nil { return nil }
            throw AppError.usage("\(command) takes its text inline here", command: command)
        }
        return text
    }

    /// Each value given.
    package init(
        today: CalendarDate, timeZone: Zone, now: @escaping @Sendable () -> Date, network: NetworkHelper.Environment,
        cache: CacheDirectory?, coordination: any Coordination, copies: BaseCopies?
    ) {
        self.today = today
        self.timeZone = timeZone
        self.now = now
        self.network = network
        self.cache = cache
        self.coordination = coordination
        self.copies = copies
    }
}

/// One run of a command: whether it may send its work beside a schema read, and the read in flight, so the face can
/// run it once more with the schema first when the read contradicts what the work assumed. A create that may have
/// been sent ends that: no second run may send it again.
package final class SchemaAttempt: Sendable {
    private let state: Locked<(inFlight: SchemaInFlight?, mayReadBeside: Bool, hasWritten: Bool)>

    /// A first run reads beside the schema; a second (after a contradiction) does not.
    package init(mayReadBeside: Bool = true) { state = Locked((nil, mayReadBeside, false)) }

    /// Whether a write went out in this run (what is shown after it waits for the schema read, but is not refused).
    package var hasWritten: Bool { state.withLock { $0.hasWritten } }

    func wrote() { state.withLock { $0.hasWritten = true } }

    /// Whether work may still go out beside a schema read not yet answered.
    package var mayReadBeside: Bool { state.withLock { $0.mayReadBeside } }

    /// The schema read going out beside this run's work, if any and if the run may still be repeated.
    package var inFlight: SchemaInFlight? { state.withLock { $0.inFlight } }

    func began(_ inFlight: SchemaInFlight) { state.withLock { $0.inFlight = inFlight } }

    /// From here on a failure is reported, never answered by running the command again.
    package func neverRunAgain() {
        state.withLock {
            $0.inFlight = nil
            $0.hasWritten = true
        }
    }

    /// Runs `work` with a first attempt, which reads beside the schema; when it fails because the schema read beside
    /// it contradicts the layout the work assumed (and nothing went out that must not be sent twice), runs it once
    /// more with the schema first. The one place this retry is written: a command line's command and a face's
    /// operation are retried alike.
    package static func retrying<T>(_ work: (SchemaAttempt) async throws -> T) async throws -> T {
        let attempt = SchemaAttempt()
        do {
            return try await work(attempt)
        } catch let error where attempt.mayReadBeside {
            guard let inFlight = attempt.inFlight else { throw error }
            if !(error is SchemaInFlight.Contradicted) {
                guard await inFlight.contradicts() else { throw error }
            }
            return try await work(SchemaAttempt(mayReadBeside: false))
        }
    }
}

extension Session {
    /// Opens a session on the base `configuration` names, with the table's layout (the remembered schema, or the
    /// schema read now) and the reader chosen once: the face's copy when it keeps one, else Airtable.
    ///
    /// With `readingBeside`, work that only reads and confirms before writing anything out does not wait for a schema
    /// that is not remembered: the layout is the one the secrets file assumes, and the schema read goes out beside the
    /// work's first request (`inFlight`). A face that keeps a copy reads the schema first (the copy needs the layout
    /// confirmed) unless `evenWithCopy`: the board's cold first screen, which is read without the copy (but from the
    /// team's copy when it keeps one: that costs no request once the schema is known).
    package static func open(
        _ configuration: Configuration, client: ProjectAPIClient, in surroundings: SessionSurroundings,
        attempt: SchemaAttempt, readingBeside: Bool = false, evenWithCopy: Bool = false
    ) async throws -> Session {
        var session = try await reading(
            configuration, client: client, in: surroundings, attempt: attempt, readingBeside: readingBeside,
            evenWithCopy: evenWithCopy)
        // Every session's writes reach the team's copies, however its layout is known.
        if let through = session.teamWriteThrough() { session.observer = through }
        return session
    }

    /// The session with its reader chosen, before its writes are made to reach the team's copies.
    private static func reading(
        _ configuration: Configuration, client: ProjectAPIClient, in surroundings: SessionSurroundings,
        attempt: SchemaAttempt, readingBeside: Bool, evenWithCopy: Bool
    ) async throws -> Session {
        let knowledge = BaseKnowledge(
            client: client, cache: surroundings.cache, now: surroundings.now,
            team: teamSchema(configuration, surroundings))
        if readingBeside && attempt.mayReadBeside && !knowledge.remembersFreshSchema
            && (surroundings.copies == nil || evenWithCopy && !configuration.teamCopy) && surroundings.maxAge == nil
        {
            let assumed = client.access.fieldSettings.assumed
            let inFlight = SchemaInFlight(assumed: assumed) { try await knowledge.layout() }
            attempt.began(inFlight)
            return Session(
                configuration: configuration, client: client.using(assumed), reader: client.using(assumed),
                knowledge: knowledge,
                layout: TableLayout(
                    fields: assumed, table: nil, schema: nil,
                    tasks: try? TaskLayout.resolve(client.access.tasks, projects: nil, schema: nil)),
                inFlight: inFlight, surroundings: surroundings, attempt: attempt)
        }
        let layout = try await knowledge.layout()
        var session = Session(
            configuration: configuration, client: client.using(layout.fields), reader: client.using(layout.fields),
            knowledge: knowledge, layout: layout, surroundings: surroundings, attempt: attempt)
        if let chosen = session.copyReader() {
            (session.reader, session.observer, session.upkeep) = (chosen, chosen, chosen)
        } else if let snapshot = await session.teamSnapshotReader() {
            // A one-shot read's snapshot: its writes go to the team's copies alone (below), not to the snapshot.
            session.reader = snapshot
        }
        return session
    }
}
