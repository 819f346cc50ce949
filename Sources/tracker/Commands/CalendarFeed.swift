#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// `tracker calendar`: the projects' due dates as an iCalendar file for any calendar app. (Not `Calendar`, which
/// would hide Foundation's in the whole module.)
struct CalendarFeed: Command {
    static let spec = CommandSpec(
        name: "calendar", summary: "Write the due dates as an iCalendar file for calendar apps.",
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

    var filters = ProjectFilters()
    var view: String? = nil
    /// `--all`: complete projects too.
    var includesComplete = false
    /// `--out FILE`; nil writes to stdout.
    var out: String? = nil

    func run(_ runner: Runner) async throws { try await runner.calendar(self) }
}

extension CalendarFeed {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        try scanned.rejectTogether("--all", "--complete")
        try scanned.rejectTogether("--all", "--incomplete")
        self.init(
            filters: try scanned.projectFilters(today: today), view: try scanned.view(),
            includesComplete: scanned.has("--all"), out: try scanned.nonEmpty("--out"))
    }
}

extension Runner {
    /// Streams the events page by page to stdout, or gathers them for `--out`; one listing, filtered on Airtable.
    fileprivate func calendar(_ options: CalendarFeed) async throws {
        // Cold, the listing goes out beside the schema read; the events wait for it to confirm the layout (the
        // table's id makes each event's address).
        let base = try await prepareBase(readingBeside: true)
        let listing = try await base.datedListing(
            options.filters, view: options.view, includesComplete: options.includesComplete,
            showing: [.name, .due, .complete, .lead, .notes], command: "calendar")
        func calendar(_ layout: TableLayout) -> ICalendar {
            ICalendar(
                baseID: base.configuration.baseID, tableID: layout.table?.id,
                tableName: layout.table?.name ?? base.configuration.table)
        }
        // Streamed to stdout; for --out gathered, since the file is replaced whole or not at all.
        var gathered = ""
        func emit(_ text: String) throws {
            if options.out == nil { try output.standardOutput(text) } else { gathered += text }
        }
        var started: ICalendar?
        let layout = try await listing.read(base.client) { page in
            if started == nil {
                // The listing has confirmed the layout before passing on its first page.
                let made = calendar(try await listing.inFlight?.confirmed() ?? listing.layout)
                try emit(made.header)
                started = made
            }
            guard let calendar = started else { return }
            // An event is 300 to 400 bytes: sized once instead of grown and copied as it fills.
            var lines = ContentLines(capacity: page.count * 400)
            for project in page { calendar.appendEvent(project, to: &lines) }
            try emit(String(decoding: lines.bytes, as: UTF8.self))
        }
        let calendar = started ?? calendar(layout)
        if started == nil { try emit(calendar.header) }
        try emit(calendar.footer)
        guard let path = options.out else { return }
        let changed = try ReplacedFile.write(Data(gathered.utf8), to: absolutePath(path), naming: "--out \(path)")
        if output.isStderrTerminal {
            output.standardError(changed ? "Wrote \(path).\n" : "\(path) is up to date; left untouched.\n")
        }
    }
}
