#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker timeline`: the open projects as bars from kickoff to due over the coming weeks.
struct Timeline: Command {
    static let spec = CommandSpec(
        name: "timeline", summary: "Draw the open projects from kickoff to due over the coming weeks.",
        usage: [
            "tracker timeline [--weeks N] [--overdue] [--due-before DATE] [--due-within DAYS]",
            "                 [--category NAME] [--lead NAME|EMAIL] [--search TEXT] [--view NAME]",
        ],
        flags: CommandSpec.filterFlags.filter { !["--complete", "--incomplete"].contains($0.name) } + [
            FlagSpec(
                name: "--weeks", value: "N", minimum: 1, maximum: 52,
                help: "how many weeks to draw, from this week's Monday (default 8)")
        ],
        examples: [
            "tracker timeline", "tracker timeline --weeks 12 --category \"Brand identity\"",
            "tracker timeline | mail -s Plan team@example.com",
        ],
        notes: [
            "One row a project, soonest due first: a bar from kickoff (or the left edge) to the due date, an arrow",
            "when it runs past the range, ! and red when overdue. It fits the terminal (else COLUMNS, else 80);",
            "piped it is plain ASCII without colour, and so it is where the locale is not UTF-8.",
        ])

    var filters = ProjectFilters()
    var view: String? = nil
    var weeks = 8

    func run(_ runner: Runner) async throws { try await runner.timeline(self) }
}

extension Timeline {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(filters: try scanned.projectFilters(today: today), view: try scanned.view())
        if let weeks = try scanned.wholeNumber("--weeks") { self.weeks = weeks }
    }
}

extension Runner {
    /// Reads every open project with a due date (one listing), then draws them at once: the name column is as wide
    /// as the longest name that fits.
    fileprivate func timeline(_ options: Timeline) async throws {
        let base = try await prepareBase(readingBeside: true)
        let listing = try await base.datedListing(
            options.filters, view: options.view, includesComplete: false, showing: [.name, .due, .kickoff, .complete],
            command: "timeline")
        // Each project's done/total, from one listing of the Tasks table beside the projects' (shown where it fits;
        // the chart is drawn without it when the Tasks table cannot be read).
        let progress = base.layout.tasks.map { base.taskProgressRead($0) }
        defer { progress?.cancel() }
        var projects: [Project] = []
        try await listing.read(base.client) { projects += $0 }
        if let tasks = try? await progress?.value {
            for index in projects.indices {
                projects[index].taskProgress = TaskProgress(tasks[projects[index].id] ?? [])
            }
        }
        let chart = TimelineChart(
            today: today, weeks: options.weeks, width: output.terminalWidth ?? 80,
            glyphs: .for(isTerminal: output.isStdoutTerminal, environment: context.environment),
            style: style)
        let text = chart.render(projects)
        if text.isEmpty {
            if output.isStderrTerminal { output.standardError("No open projects with a due date.\n") }
            return
        }
        try output.standardOutput(text)
    }
}
