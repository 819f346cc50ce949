import TrackerBoard
import TrackerModel
import TrackerOperations
import TrackerSystem

extension Board: Command {
    func run(_ runner: Runner) async throws { try await runner.board(self) }
}

extension Runner {
    /// `tracker board`: started here with what the board needs of the process (its sessions, its clock, the
    /// terminal's settings), then the board's own.
    fileprivate func board(_ options: Board) async throws {
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
        let host = BoardHost(
            opener: quiet.workspace(for: invocation, today: today).opener(), today: today, now: context.now,
            timeZone: context.timeZone,
            keepsCopies: quiet.copies != nil, unicode: TimelineChart.Glyphs.localeIsUTF8(context.environment),
            colour: invocation.globals.color.isEnabled(isTerminal: true, environment: context.environment),
            openInBrowser: context.openInBrowser, beforeEnding: { [context] in context.interruption.beforeEnding($0) },
            said: said)
        try await options.run(in: host)
    }
}
