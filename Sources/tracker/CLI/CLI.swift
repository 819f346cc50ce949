#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import CTerminal
import Dispatch
import TrackerSystem
import TrackerModel
import TrackerOperations

/// The command-line front end: parse, execute, report; returns the exit code instead of exiting.
enum CLI {
    /// Runs tracker in the real process: real streams, clock, network and signal handling. The command runs as a task;
    /// the calling thread waits for it and meanwhile takes SIGINT, SIGTERM and SIGHUP from a handler's pipe (dispatch's
    /// signal sources would start a thread of dispatch's and its epoll for them, 0.2 ms of every run).
    static func run(arguments: [String], environment: [String: String]) -> ExitCode {
        let context = Context.live(environment: environment)
        let watching = tracker_signals_watch() == 0
        let code = Locked(ExitCode.success)
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            let result = await run(arguments: arguments, context: context)
            code.withLock { $0 = result }
            finished.signal()
            if watching { tracker_signals_finish() }
        }
        if watching {
            while case let number = tracker_signals_next(), number > 0 { context.interruption.receive(signal: number) }
        }
        finished.wait()
        return code.withLock { $0 }
    }

    /// Runs tracker with injected surroundings; the only place errors are turned into text.
    static func run(arguments: [String], context: Context) async -> ExitCode {
        // Read once, so a whole command (a long listing past midnight included) sees one date.
        let today = CalendarDate(context.now(), in: context.timeZone)
        if arguments.first == CompletionNames.command {
            let lines = CompletionNames.lines(Array(arguments.dropFirst()), context: context)
            try? context.output.standardOutput(lines.map { $0 + "\n" }.joined())
            return .success
        }
        let invocation: Invocation
        switch Invocation.parse(arguments, today: today) {
        case .success(let parsed): invocation = parsed
        case .failure(let error): return report(error, to: context.output)
        }
        if type(of: invocation.command).spec.loadsTransportAtStart { context.prepareNetwork() }
        do {
            try await Runner(invocation: invocation, context: context, today: today).execute()
            return .success
        } catch is OutputClosed {
            return .success
        } catch let error as AppError {
            return report(error, to: context.output)
        } catch {
            return report(.output("\(error)"), to: context.output)
        }
    }

    /// Whether libcurl starts loading from the first moment, told before the command line is parsed: for all that may
    /// send but the board (which draws first); never for help, the version and completion, which never send. A guess
    /// that is wrong costs a load or a wait for one, never a result.
    static func loadsTransportAtStart(_ arguments: [String]) -> Bool {
        if arguments.contains("--help") || arguments.contains("-h") { return false }
        // The command's word as the parser finds it; none (the version, bare help): nothing to send.
        guard let command = Invocation.findCommand(arguments).map({ arguments[$0] }) else { return false }
        // Each command says it on its spec; completion's hidden word is not in the registry.
        if command == CompletionNames.command { return false }
        return CommandRegistry.spec(named: command)?.loadsTransportAtStart ?? true
    }

    /// Prints `tracker: <message>` and the hint on stderr, and returns the error's exit code.
    static func report(_ error: AppError, to output: Output) -> ExitCode {
        if case .exited(let status) = error { return status }
        var text = "tracker: \(error.message)\n"
        if let hint = error.hint { text += hint + "\n" }
        output.standardError(text)
        return error.exitCode
    }
}
