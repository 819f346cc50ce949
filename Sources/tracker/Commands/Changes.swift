#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

/// `tracker changes`: what changed in the table since the last run, one line a change.
struct Changes: Command {
    static let spec = CommandSpec(
        name: "changes", summary: "Show what changed in the table since the last run.",
        usage: [
            "tracker changes [--peek | --reset] [--json | --format text|json|ndjson] [--overdue]",
            "                [--due-before DATE] [--due-within DAYS] [--complete | --incomplete]",
            "                [--category NAME] [--lead NAME|EMAIL] [--search TEXT] [--view NAME]",
        ],
        flags: CommandSpec.filterFlags + [
            FlagSpec(name: "--peek", help: "show the changes but remember nothing"),
            FlagSpec(name: "--reset", help: "forget what was seen; the next run remembers afresh"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: Format.allCases.map(\.rawValue),
                help: "text (a line a change), json (one array) or ndjson (an object a line)"),
            FlagSpec(name: "--json", help: "the same as --format json"),
        ],
        examples: [
            "tracker changes", "tracker changes --peek --category \"Brand identity\"",
            "tracker changes --format ndjson | jq -r 'select(.change == \"added\") | .name'",
        ],
        notes: [
            "The first run remembers the table and prints nothing. What was seen is replaced only after the changes",
            "are written out, so a run that fails or is interrupted reports them again. Nothing changed prints",
            "nothing, so cron mails nothing. Each set of filters has a memory of its own. Later runs read only what",
            "changed since (the base's webhook says what, and what was deleted; without webhook:manage, the ids);",
            "with --view, --overdue or --due-within they read the whole table, as the day alone can change those.",
        ])

    enum Format: String, CaseIterable, Sendable {
        case text, json, ndjson
    }

    var filters = ProjectFilters()
    var view: String? = nil
    var format = Format.text
    var peek = false
    var reset = false

    func run(_ runner: Runner) async throws { try await runner.changes(self) }

    /// The filters and view as text: part of the snapshot's name and of what it says it holds.
    var selection: String {
        var parts: [String] = []
        if filters.overdue { parts.append("overdue") }
        if let date = filters.dueBefore { parts.append("due before \(date)") }
        if let days = filters.dueWithinDays { parts.append("due within \(days)") }
        if let complete = filters.complete { parts.append(complete ? "complete" : "incomplete") }
        if let category = filters.category { parts.append("category \(category.lowercased())") }
        if let lead = filters.lead { parts.append("lead \(lead.lowercased())") }
        if let team = filters.team { parts.append("team \(team.lowercased())") }
        if filters.mine { parts.append("mine") }
        if let search = filters.search { parts.append("search \(search.lowercased())") }
        if let client = filters.client { parts.append("client \(client.lowercased())") }
        if let view { parts.append("view \(view)") }
        return parts.joined(separator: ", ")
    }
}

extension Changes {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        try scanned.rejectTogether("--peek", "--reset")
        self.init(filters: try scanned.projectFilters(today: today), view: try scanned.view())
        peek = scanned.has("--peek")
        reset = scanned.has("--reset")
        format = try scanned.formatName().flatMap(Format.init(rawValue:)) ?? .text
    }
}

extension Runner {
    /// Reads the table (one listing), compares it with the snapshot, writes the changes out, and only then replaces
    /// the snapshot; one run at a time per snapshot.
    fileprivate func changes(_ options: Changes) async throws {
        guard let directory = context.stateDirectory else {
            throw AppError.configuration(
                "tracker changes needs somewhere to remember the table, and neither XDG_STATE_HOME nor HOME is set",
                hint: "Set HOME (cron sets it) or XDG_STATE_HOME.")
        }
        let base = try await prepareBase(readingBeside: true)
        let configuration = base.configuration
        let name =
            FileLock.name(
                prefix: "changes",
                [
                    configuration.profile ?? "", configuration.endpoint.absoluteString, configuration.baseID,
                    configuration.table, options.selection,
                ]) + ".json"
        let path = directory.path + "/" + name
        // A second run on this snapshot waits for the first: never two reports of one change, never a torn file.
        let held = try await base.lock(
            [configuration.profile ?? "", configuration.endpoint.absoluteString, options.selection], for: "changes",
            doing: "comparing with \(path)", machineOnly: true)
        defer { withExtendedLifetime(held) {} }
        if options.reset {
            guard directory.remove(name) else {
                throw AppError.output("the snapshot \(path) could not be removed: \(String(cString: strerror(errno)))")
            }
            if output.isStderrTerminal {
                output.standardError("Forgot what changes had seen; the next run remembers afresh.\n")
            }
            return
        }
        func untrusted(_ problem: TableSnapshot.Problem) -> AppError {
            let why =
                switch problem {
                case .corrupt(let reason), .otherTable(let reason): reason
                }
            return AppError.configuration(
                "the snapshot \(path) cannot be trusted: \(why)", hint: "Run 'tracker changes --reset' to start over.")
        }
        var previous: TableSnapshot.Stored?
        // The same buffer the snapshot is read from (not a copy): compared with the new file at the end.
        let previousData = directory.bytes(name)
        if let data = previousData {
            do {
                previous = try TableSnapshot.read(
                    data, baseID: configuration.baseID, table: configuration.table, selection: options.selection)
            } catch {
                throw untrusted(error)
            }
        }
        // The table is compared page by page as it arrives: only the lines of changed projects are ever parsed.
        // The new snapshot is written as it is compared, straight into the file's bytes, header first.
        // Sized from the last file, so growing it never holds two copies of a large table at once.
        func formatter(_ layout: TableLayout) -> FieldFormatter {
            FieldFormatter(table: layout.table, timeZone: context.timeZone, recordNames: clientNames(layout, base))
        }
        func comparing(_ layout: TableLayout, news: TableSnapshot.News?) -> TableComparison {
            TableComparison(
                previous: previous, formatter: formatter(layout),
                capacity: max(1 << 16, (previousData?.count ?? 0) * 9 / 8),
                header: TableSnapshot.header(
                    baseID: configuration.baseID, table: configuration.table, selection: options.selection,
                    news: news))
        }
        var comparison: TableComparison
        var distrusted = Set<String>()
        do {
            if let previous,
                let news = try await base.changesNews(options, previous: previous, distrusted: &distrusted)
            {
                // Only what changed since the snapshot is read, and its other lines are kept as they are.
                comparison = comparing(try await base.confirmedLayout(), news: news.next)
                try comparison.patch(changed: news.changed, left: news.left, deleted: news.deleted)
            } else {
                comparison = try await compareWhole(
                    options, previous: previous, base: base, distrusted: distrusted, comparing: comparing)
            }
        } catch let problem as TableSnapshot.Problem {
            throw untrusted(problem)
        }
        let (file, changes, seen) = (comparison.file, comparison.changes, comparison.count)
        if previous != nil {
            try write(changes, as: options.format)
        } else if output.isStderrTerminal {
            output.standardError(
                "Remembered \(seen) project\(seen == 1 ? "" : "s"); the next run shows what changed.\n")
        }
        guard !options.peek else { return }
        // Nothing changed and the file already says so, byte for byte: replacing it (and waiting for the disk) would
        // only cost time.
        if changes.isEmpty, let previousData, !file.bytes.isEmpty, previousData.count == file.bytes.count,
            previousData.withUnsafeBytes({ old in
                file.bytes.withUnsafeBytes { memcmp(old.baseAddress!, $0.baseAddress!, old.count) == 0 }
            })
        {
            return
        }
        guard directory.write(file.bytes, to: name, durable: true) else {
            throw AppError.output("the snapshot \(path) could not be replaced; these changes will be shown again")
        }
    }

    /// The snapshot compared with the whole table, read by one listing (where the news starts taken first).
    private func compareWhole(
        _ options: Changes, previous: TableSnapshot.Stored?, base: Session, distrusted: Set<String>,
        comparing: (TableLayout, TableSnapshot.News?) -> TableComparison
    ) async throws -> TableComparison {
        let listing = try await base.projectListing(options.filters, view: options.view, command: "changes")
        let news = try await base.changesNewsStart(options, distrusted: distrusted)
        var started: TableComparison?
        // Cold, the listing goes out beside the schema read; values are formatted by the fields' types, so the
        // comparison starts once the schema has confirmed the layout (before the first page is passed on).
        let layout = try await listing.read(base.client) { page in
            if started == nil {
                started = comparing(try await listing.inFlight?.confirmed() ?? listing.layout, news)
            }
            try started?.add(page)
        }
        var comparison = started ?? comparing(layout, news)
        if let previous {
            let missing = comparison.missing
            // A project that left the filters but is still in the table changed; it was not deleted.
            let left =
                options.selection.isEmpty
                ? [] : try await stillThere(missing, base: base, formatter: comparison.formatter)
            let stayed = Set(left.map(\.id))
            for entry in left { try comparison.compare(entry) }
            for id in missing where !stayed.contains(id) {
                if let entry = try previous.entry(id) { comparison.changes.append(TableChange.deleted(entry)) }
            }
        }
        return comparison
    }

    /// The projects among `ids` that are still in the table, read by id a hundred a request.
    private func stillThere(_ ids: [String], base: Session, formatter: FieldFormatter) async throws
        -> [TableSnapshot.Entry]
    {
        var entries: [TableSnapshot.Entry] = []
        for chunk in ids.chunked(into: 100) {
            let found = try await base.client.projects(matching: Formula.any(chunk.map(Formula.recordID(is:)))).get()
            entries += found.map { TableSnapshot.entry($0, formatter: formatter) }
        }
        return entries
    }

    /// Client names tracker remembers, so a change of client reads as names where it can.
    private func clientNames(_ layout: TableLayout, _ base: Session) -> [String: String] {
        layout.clientTableID.map(base.knowledge.recordNames(in:)) ?? [:]
    }

    private func write(_ changes: [TableChange], as format: Changes.Format) throws {
        guard !changes.isEmpty else { return }
        switch format {
        case .text: try output.standardOutput(changes.flatMap(\.lines).map { $0 + "\n" }.joined())
        case .json: try output.standardOutput(JSONValue.array(changes.map(\.json)).serialized() + "\n")
        case .ndjson: try output.standardOutput(changes.map { $0.json.serialized() + "\n" }.joined())
        }
    }
}
