#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker board`: the table on one live screen, in columns, for a person at a terminal.
package struct Board: Equatable, Sendable {
    package static let spec = CommandSpec(
        name: "board", facts: [.drawsBeforeLoadingTransport, .staysOpen],
        summary: "The projects on one live screen: columns of cards to open, tick off and comment.",
        usage: [
            "tracker board [--overdue] [--due-before DATE] [--due-within DAYS] [--category NAME]",
            "              [--lead NAME|EMAIL] [--team NAME|EMAIL] [--client NAME|ID] [--search TEXT]",
            "              [--view NAME] [--mine] [--every SECONDS]",
        ],
        flags: CommandSpec.filterFlags.filter { !["--complete", "--incomplete"].contains($0.name) } + [
            FlagSpec(
                name: "--every", value: "SECONDS", minimum: 5,
                help: "bring the board up to date this often, reading only what changed (default 60, at least 5)")
        ],
        examples: ["tracker board", "tracker board --mine", "tracker board --client \"Acme Robotics\" --every 300"],
        notes: [
            "Columns: Overdue, This week (due within 7 days: \(DueWithin.words("7"))), Later (after, or no due",
            "date) and Done (completed in the last 14 days). Arrows or h j k l move; Enter opens a card (its fields,",
            "tasks, files and comments);",
            "Space ticks the selected task; d marks the project done or open again (after y); c writes a comment;",
            "o opens the record in the browser; / narrows to names holding the text; m shows only yours (lead, team",
            "or a task assigned); r reads the table again; ? lists the keys; q or Ctrl-C ends it. Every write follows",
            "the commands' rules. It needs a terminal: off one, try tracker list or tracker status. After the first",
            "read each refresh reads only what changed; the header says what shows deletions (the base's webhook",
            "with the scope webhook:manage, else a listing of ids every 5 minutes). With the team's Redis (\"redis\",",
            "TRACKER_REDIS_URL) boards on several machines share one budget and one webhook; the bottom line says when",
            "the Redis cannot be used or a 429 slowed the pace. With \"teamCopy\" the boards and assistants of a team share",
            "one copy of the tables in that Redis (its records stored there; opt in): one polls, the others open from",
            "it and redraw as soon as it changes; the header says \"the team's copy\".",
        ])

    package var filters = ProjectFilters()
    package var view: String? = nil
    package var everySeconds = 60

}

extension Board {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(
            filters: try scanned.projectFilters(today: today), view: try scanned.view(),
            everySeconds: try scanned.wholeNumber("--every") ?? 60)
    }
}
