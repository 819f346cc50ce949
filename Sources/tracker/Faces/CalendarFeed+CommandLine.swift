#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// `tracker calendar`: the projects' due dates as an iCalendar file for any calendar app. (Not `Calendar`, which
extension CalendarFeed: Command {
    /// Streams the events page by page to stdout, or gathers them for `--out`; one listing, filtered on Airtable.
    func run(_ runner: Runner) async throws {
        let options = self
        // Cold, the listing goes out beside the schema read; the events wait for it to confirm the layout (the
        // table's id makes each event's address).
        // Streamed to stdout; for --out gathered, since the file is replaced whole or not at all.
        var gathered = ""
        func emit(_ text: String) throws {
            if options.out == nil { try runner.output.standardOutput(text) } else { gathered += text }
        }
        var started: ICalendar?
        _ = try await runner.perform(options) { base in
            func calendar(_ layout: TableLayout) -> ICalendar {
                ICalendar(
                    baseID: base.configuration.baseID, tableID: layout.table?.id,
                    tableName: layout.table?.name ?? base.configuration.table)
            }
            let layout = try await options.run(in: base) { layout, page in
                if started == nil {
                    let made = calendar(layout)
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
            return layout
        }
        guard let path = options.out else { return }
        let changed = try ReplacedFile.write(
            Data(gathered.utf8), to: runner.absolutePath(path), naming: "--out \(path)")
        if runner.output.isStderrTerminal {
            runner.output.standardError(changed ? "Wrote \(path).\n" : "\(path) is up to date; left untouched.\n")
        }
    }
}
