extension Runner {
    /// Prints the requests a `--dry-run` would send: `METHOD path` and the JSON body.
    func printPlanned(_ requests: [PlannedRequest]) throws {
        for request in requests { try output.standardOutput(request.text) }
    }

    /// Prints projects a command wrote, as they are written: ids one a line, a JSON array with `--json`, or nothing
    /// with `-q`. `finish` closes the array.
    func writtenOutput(_ mode: WriteMode) -> WrittenOutput {
        WrittenOutput(mode: mode, today: today, output: output)
    }
}

/// The stdout of a command that writes several projects, streamed batch by batch so what was done is on record even
/// if a later batch fails.
struct WrittenOutput {
    let mode: WriteMode
    private var array: JSONArrayRenderer
    private let output: Output

    init(mode: WriteMode, today: CalendarDate, output: Output) {
        self.mode = mode
        self.array = JSONArrayRenderer(today: today)
        self.output = output
    }

    mutating func emit(_ projects: [Project]) throws {
        guard !mode.quiet, !projects.isEmpty else { return }
        let text = mode.json ? array.render(page: projects) : projects.map { $0.id + "\n" }.joined()
        try output.standardOutput(text)
    }

    mutating func finish() throws {
        if mode.json && !mode.quiet { try output.standardOutput(array.finish()) }
    }
}
