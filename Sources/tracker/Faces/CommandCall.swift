import TrackerModel
import TrackerOperations

/// One command run for a face other than the command line (`mcp`, `board`): its line parsed by the command line's own
/// parser and run by its own runner, with the face holding its streams. So every face gets the commands' rules
/// (naming, checks, exactly-once writes, pacing, sanitised text) from the one place they are written.
enum CommandCall {
    /// Runs `line` (without the program's name) in `context` with standard output going to `captured`; the failure
    /// is the command's own error, as the command line would report it.
    static func run(
        _ line: [String], context: Context, globals: GlobalOptions, into captured: CapturedOutput,
        notes: CommandNotes = CommandNotes(), interruption: Interruption = Interruption(),
        terminalWidth: Int? = nil
    ) async throws(AppError) {
        var call = context
        let standardError = context.output.rawStandardError
        // A width given is a terminal's: the command lays its text out for it (show on the board's card).
        call.output = Output(
            standardOutput: { captured.write($0) }, standardError: standardError,
            isStdoutTerminal: terminalWidth != nil, terminalWidth: terminalWidth)
        call.notes = notes
        call.interruption = interruption
        let today = CalendarDate(call.now(), in: call.timeZone)
        var invocation = try Invocation.parse(line, today: today).get()
        invocation.globals = globals
        do {
            try await Runner(invocation: invocation, context: call, today: today).execute()
        } catch let error as AppError {
            throw error
        } catch is OutputClosed {
            return
        } catch {
            throw AppError.output("\(error)")
        }
    }
}
