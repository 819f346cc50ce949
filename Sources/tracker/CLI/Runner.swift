#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// Executes one parsed invocation: the command line's own context (the arguments, the streams, the terminal and what
/// only a person at it can answer), with the workspace its sessions are opened from.
struct Runner {
    var invocation: Invocation
    var context: Context
    /// Read once, so a whole command (a long listing past midnight included) sees one date.
    let today: CalendarDate
    /// What this command's sessions stand on: the configuration read once, the client, the engine, the copies.
    let workspace: Workspace
    /// Whether this run may still be run again with the schema first, and the schema read in flight for it (given by
    /// `execute`, which runs the command once more when the schema contradicts it).
    var attempt = SchemaAttempt()
    /// What tracker is waiting for, on a terminal's stderr; nil elsewhere.
    let status: StatusLine?
    /// The context's streams, clearing the status line before each write.
    let output: Output
    /// The person's editor, offered to sessions only by the command that edits (`edit`).
    var editor: FormEditor? = nil

    init(invocation: Invocation, context: Context, today: CalendarDate) {
        self.invocation = invocation
        self.context = context
        self.today = today
        let status = context.output.isStderrTerminal ? StatusLine(write: context.output.rawStandardError) : nil
        self.status = status
        let output = status?.clearing(context.output) ?? context.output
        self.output = output
        workspace = context.workspace(for: invocation, today: today, output: output, status: status)
        // A Ctrl-C that ends tracker at once must not leave the line for the shell's prompt to land on.
        if let status { context.interruption.beforeEnding { status.clear() } }
    }

    var style: Style {
        Style(
            isEnabled: invocation.globals.color.isEnabled(
                isTerminal: output.isStdoutTerminal, environment: context.environment))
    }

    func execute() async throws {
        defer { status?.clear() }
        // Nothing was written before the schema was confirmed: the command runs again, the schema first, when it says
        // the work went out with the wrong fields (or failed for that reason).
        try await SchemaAttempt.retrying { attempt in
            var run = self
            run.attempt = attempt
            try await run.invocation.command.run(run)
        }
    }

    // MARK: - Wiring

    /// Opens the session a command works in, from the workspace, with what a person at this terminal can be asked
    /// (see `Session.open` for `readingBeside` and `evenWithCopy`).
    func prepareBase(readingBeside: Bool = false, evenWithCopy: Bool = false) async throws -> Session {
        try await workspace.session(
            SessionOpening(readingBeside: readingBeside, evenWithCopy: evenWithCopy), attempt: attempt,
            adjust: personAsked)
    }

    /// Runs `operation` in a session of this run's: the layout it assumed confirmed before its outcome is handed back
    /// (`execute` runs the command once more, the schema first, when the schema contradicts it).
    /// `body` runs it when the command line takes its outcome as it comes (a write's batches, a listing's pages).
    func perform<O: Operation>(
        _ operation: O, _ body: ((Session) async throws -> O.Outcome)? = nil
    ) async throws -> O.Outcome {
        let opening = operation.opening
        let session = try await prepareBase(readingBeside: opening.readingBeside, evenWithCopy: opening.evenWithCopy)
        return try await SessionOpener.run(operation, in: session, body)
    }

    /// Runs work on the configuration itself (doctor, init) with what this run's sessions would stand on.
    /// `body` runs it when the face takes part (init's questions).
    func perform<O: SetupOperation>(
        _ operation: O, in setup: Setup? = nil, _ body: ((Setup) async throws -> O.Outcome)? = nil
    ) async throws -> O.Outcome {
        let setup = setup ?? self.setup
        if let body { return try await body(setup) }
        return try await operation.run(in: setup)
    }

    /// What this run's sessions stand on, for work that comes before one.
    var setup: Setup { workspace.setup(adjust: personAsked) }

    /// What a person at this terminal can be asked, added to every session's surroundings: the editor (for `edit`),
    /// whether a guessed name is the one meant, notes from a file or stdin, and whether to delete.
    var personAsked: @Sendable (inout SessionSurroundings) -> Void {
        let (editor, guess) = (editor, guessQuestion())
        let run = self
        return { surroundings in
            surroundings.editor = editor
            surroundings.confirmsGuess = guess
            surroundings.readNotes = { try run.readNotes($0, command: $1, flag: $2) }
            surroundings.confirmsDeleting = {
                try run.confirmDeleting($0, noun: $1, command: $2, verb: $3, from: $4)
            }
        }
    }

    /// On a terminal, the question a write asks about the one record whose name holds every word typed: true only for
    /// a yes. Nil off a terminal, where a guess is 66.
    private func guessQuestion() -> (@Sendable (_ noun: String, _ name: String) -> Bool)? {
        guard context.isStdinTerminal && output.isStderrTerminal else { return nil }
        let (output, context) = (output, context)
        return { noun, name in
            output.standardError("No \(noun) has that name. Did you mean \"\(TextCells.folded(name))\"? [y/N] ")
            let answer = context.readLine()?.trimmingWhitespace().lowercased()
            return answer == "y" || answer == "yes"
        }
    }

    /// The configuration, read once for this run (the workspace's).
    func loadConfiguration() throws -> Configuration { try workspace.loadConfiguration() }
}
