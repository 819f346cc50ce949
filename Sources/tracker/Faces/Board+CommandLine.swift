import TrackerBoard
import TrackerModel
import TrackerOperations
import TrackerSystem

extension Board: Command {
    /// `tracker board`: started here with what the board needs of the process (its sessions, its clock, the
    /// terminal's settings), then the board's own.
    func run(_ runner: Runner) async throws {
        let options = self
        guard runner.context.isStdinTerminal, runner.output.isStdoutTerminal else {
            throw AppError.usage("board needs a terminal; try tracker list or tracker status", command: "board")
        }
        // What the commands say on stderr would tear the screen: it goes to the bottom line instead, and on to stderr
        // too when that is not the terminal (`--verbose 2> file` keeps every request).
        let said = SaidLine()
        let stderrElsewhere = !runner.output.isStderrTerminal
        var quiet = runner.context
        // The board keeps the tables and reads only what changed at each refresh, unless a view picks the cards
        // (Airtable alone knows a view's filters).
        if options.view == nil { quiet.copies = .board }
        quiet.output = Output(
            standardOutput: runner.output.standardOutput,
            standardError: { [runner] text in
                if stderrElsewhere { runner.output.standardError(text) }
                said.say(text)
            }, isStdoutTerminal: true, isStderrTerminal: false, terminalWidth: runner.output.terminalWidth)
        let workspace = quiet.workspace(for: runner.invocation, today: runner.today)
        // Read (token command and all) before the board takes the terminal, which it then does at once.
        let configuration = try workspace.loadConfiguration()
        let table = configuration.table
        var host = BoardHost(
            opener: workspace.opener(), today: runner.today,
            now: runner.context.now,
            timeZone: runner.context.timeZone,
            unicode: TimelineChart.Glyphs.localeIsUTF8(runner.context.environment),
            colour: runner.invocation.globals.color.isEnabled(
                isTerminal: true, environment: runner.context.environment),
            openInBrowser: runner.context.openInBrowser,
            beforeEnding: { [runner] in runner.context.interruption.beforeEnding($0) },
            said: said)
        host.table = table
        // Ended by a signal (SIGTERM, a closed terminal's SIGHUP), the board lets the team's lease go as `q` does.
        if let copies = quiet.copies { runner.context.interruption.beforeEnding { copies.finishAtExit() } }
        // A board that keeps the team's copy loads libcurl only if it polls (the copy calls for it then) or sends: a
        // follower reads Redis alone, and boards opened together would each spend CPU loading it (the boards row).
        if configuration.teamCopyRedis == nil {
            host.loadTransport = runner.context.prepareNetwork
        }
        do {
            try await options.run(in: host)
        } catch {
            await quiet.copies?.finish()
            throw error
        }
        await quiet.copies?.finish()
    }
}
