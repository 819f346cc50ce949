import TrackerAPI
import TrackerModel

/// `tracker timeline`: the open projects as bars from kickoff to due over the coming weeks.
package struct Timeline: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "timeline", facts: [.readsTeamCopy],
        summary: "Draw the open projects from kickoff to due over the coming weeks.",
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

    package var filters = ProjectFilters()
    package var view: String? = nil
    package var weeks = 8

    package var opening: SessionOpening { .besideSchema }

    /// Every open project with a due date (one listing), each with its tasks' progress where the Tasks table can be
    /// read (one listing beside the projects').
    package func run(in session: Session) async throws -> [Project] {
        let listing = try await session.datedListing(
            filters, view: view, includesComplete: false, showing: [.name, .due, .kickoff, .complete],
            command: "timeline")
        let progress = session.layout.tasks.map { session.taskProgressRead($0) }
        defer { progress?.cancel() }
        var projects: [Project] = []
        try await listing.read(session.reader) { projects += $0 }
        if let tasks = try? await progress?.value {
            for index in projects.indices {
                projects[index].taskProgress = TaskProgress(tasks[projects[index].id] ?? [])
            }
        }
        return projects
    }
}

extension Timeline {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(filters: try scanned.projectFilters(today: today), view: try scanned.view())
        if let weeks = try scanned.wholeNumber("--weeks") { self.weeks = weeks }
    }
}
