import TrackerModel
import TrackerOperations

/// One command run for mcp's file tools, whose commands are not yet operations: its line parsed by the command line's
/// own parser and run by its own runner, with the server holding its streams. Every other tool runs its operation.
enum CommandCall {
    /// Runs `line` (without the program's name) in `context` with standard output going to `captured`; the failure
    /// is the command's own error, as the command line would report it.
    static func run(
        _ line: [String], context: Context, globals: GlobalOptions, into captured: CapturedOutput,
        notes: CommandNotes = CommandNotes(), interruption: Interruption = Interruption()
    ) async throws(AppError) {
        var call = context
        let standardError = context.output.rawStandardError
        call.output = Output(
            standardOutput: { captured.write($0) }, standardError: standardError, isStdoutTerminal: false,
            terminalWidth: nil)
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
