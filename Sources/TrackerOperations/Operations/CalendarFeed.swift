import TrackerAPI
import TrackerModel

/// would hide Foundation's in the whole module.)
package struct CalendarFeed: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "calendar", facts: [.readsTeamCopy],
        summary: "Write the due dates as an iCalendar file for calendar apps.",
        usage: [
            "tracker calendar [--all] [--out FILE] [--overdue] [--due-before DATE]",
            "                 [--due-within DAYS] [--complete | --incomplete] [--category NAME]",
            "                 [--lead NAME|EMAIL] [--search TEXT] [--view NAME]",
        ],
        flags: CommandSpec.filterFlags + [
            FlagSpec(name: "--all", help: "the complete projects too (without it, only open ones)"),
            FlagSpec(
                name: "--out", value: "FILE",
                help: "replace FILE atomically, and leave it untouched when nothing changed"),
        ],
        examples: [
            "tracker calendar > projects.ics",
            "tracker calendar --out ~/public_html/projects.ics    # from cron",
            "tracker calendar --category \"Brand identity\" --all --out brand.ics",
        ],
        notes: [
            "One all-day event a project with a due date, named by the record id and the base, so calendar apps",
            "update events instead of adding them again; the same projects always give the same bytes. The",
            "filters are list's and run on Airtable.",
        ])

    package var filters = ProjectFilters()
    package var view: String? = nil
    /// `--all`: complete projects too.
    package var includesComplete = false
    /// `--out FILE`; nil writes to stdout.
    package var out: String? = nil

    // Cold, the listing goes out beside the schema read; the events wait for it to confirm the layout (the table's id
    // makes each event's address).
    package var opening: SessionOpening { .besideSchema }

    /// The dated projects, collected (the command line streams them with `run(in:each:)`).
    package func run(in session: Session) async throws -> TableLayout {
        try await run(in: session) { _, _ in }
    }

    /// One listing, filtered on Airtable: each page handed on with the layout the listing confirmed before it; returns
    /// that layout (for a feed of no events).
    package func run(in session: Session, each: (TableLayout, [Project]) throws -> Void) async throws -> TableLayout {
        let listing = try await session.datedListing(
            filters, view: view, includesComplete: includesComplete,
            showing: [.name, .due, .complete, .lead, .notes], command: "calendar")
        var confirmed: TableLayout?
        return try await listing.read(session.reader) { page in
            if confirmed == nil { confirmed = try await listing.inFlight?.confirmed() ?? listing.layout }
            try each(confirmed!, page)
        }
    }
}

extension CalendarFeed {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        try scanned.rejectTogether("--all", "--complete")
        try scanned.rejectTogether("--all", "--incomplete")
        self.init(
            filters: try scanned.projectFilters(today: today), view: try scanned.view(),
            includesComplete: scanned.has("--all"), out: try scanned.nonEmpty("--out"))
    }
}
