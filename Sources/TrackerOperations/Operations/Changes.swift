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
import TrackerNetwork
import TrackerSystem

/// `tracker changes`: what changed in the table since the last run, one line a change.
package struct Changes: Operation, Equatable {
    package static let spec = CommandSpec(
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

    package enum Format: String, CaseIterable, Sendable {
        case text, json, ndjson
    }

    package var filters = ProjectFilters()
    package var view: String? = nil
    package var format = Format.text
    package var peek = false
    package var reset = false

    package var opening: SessionOpening { .besideSchema }

    /// Each option given.
    package init(
        filters: ProjectFilters = ProjectFilters(), view: String? = nil, format: Format = .text, peek: Bool = false,
        reset: Bool = false
    ) {
        (self.filters, self.view, self.format, self.peek, self.reset) = (filters, view, format, peek, reset)
    }

    /// The filters and view as text: part of the snapshot's name and of what it says it holds.
    package var selection: String {
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

    /// Nowhere to remember the table: said before anything is read.
    package static let nowhereToRemember = AppError.configuration(
        "tracker changes needs somewhere to remember the table, and neither XDG_STATE_HOME nor HOME is set",
        hint: "Set HOME (cron sets it) or XDG_STATE_HOME.")

    /// Reads the table (one listing, or only what the news says changed) and compares it with the snapshot, one run
    /// at a time per snapshot. The new snapshot is handed back unwritten: the face keeps it once it has shown the
    /// changes, so a run that fails or is interrupted on the way reports them again.
    package func run(in session: Session) async throws -> ChangesOutcome {
        guard let directory = session.surroundings.state else { throw Self.nowhereToRemember }
        let configuration = session.configuration
        let name =
            FileLock.name(
                prefix: "changes",
                [
                    configuration.profile ?? "", configuration.endpoint.absoluteString, configuration.baseID,
                    configuration.table, selection,
                ]) + ".json"
        let path = directory.path + "/" + name
        // A second run on this snapshot waits for the first: never two reports of one change, never a torn file.
        let held = try await session.lock(
            [configuration.profile ?? "", configuration.endpoint.absoluteString, selection], for: "changes",
            doing: "comparing with \(path)", machineOnly: true)
        if reset {
            defer { withExtendedLifetime(held) {} }
            guard directory.remove(name) else {
                throw AppError.output("the snapshot \(path) could not be removed: \(String(cString: strerror(errno)))")
            }
            return .forgotten
        }
        let pending = PendingSnapshot(directory: directory, name: name, held: held)
        let previousData = directory.bytes(name)
        let comparison = try await compare(in: session, previousData: previousData, path: path)
        let (file, changes) = (comparison.file, comparison.changes)
        // Nothing changed and the file already says so, byte for byte: replacing it (and waiting for the disk) would
        // only cost time.
        let unchanged =
            changes.isEmpty && previousData.map { Self.same($0, file.bytes) } ?? false
        let snapshot = peek || unchanged ? pending : pending.holding(file.bytes)
        guard comparison.previous != nil else { return .remembered(projects: comparison.count, snapshot: snapshot) }
        return .changed(changes, snapshot: snapshot)
    }

    private static func same(_ old: [UInt8], _ new: [UInt8]) -> Bool {
        !new.isEmpty && old.count == new.count
            && old.withUnsafeBytes { old in
                new.withUnsafeBytes { memcmp(old.baseAddress!, $0.baseAddress!, old.count) == 0 }
            }
    }

    /// The snapshot (when there is one) compared with the table; a snapshot that cannot be trusted is refused.
    private func compare(in session: Session, previousData: [UInt8]?, path: String) async throws -> TableComparison {
        let configuration = session.configuration
        func untrusted(_ problem: TableSnapshot.Problem) -> AppError {
            let why =
                switch problem {
                case .corrupt(let reason), .otherTable(let reason): reason
                }
            return AppError.configuration(
                "the snapshot \(path) cannot be trusted: \(why)", hint: "Run 'tracker changes --reset' to start over.")
        }
        var previous: TableSnapshot.Stored?
        if let data = previousData {
            do {
                previous = try TableSnapshot.read(
                    data, baseID: configuration.baseID, table: configuration.table, selection: selection)
            } catch {
                throw untrusted(error)
            }
        }
        // The table is compared page by page as it arrives: only the lines of changed projects are ever parsed.
        // The new snapshot is written as it is compared, straight into the file's bytes, header first.
        // Sized from the last file, so growing it never holds two copies of a large table at once.
        let zone = session.surroundings.timeZone
        let selection = selection
        func comparing(_ layout: TableLayout, news: TableSnapshot.News?) -> TableComparison {
            // Client names tracker remembers, so a change of client reads as names where it can.
            let names = layout.clientTableID.map(session.knowledge.recordNames(in:)) ?? [:]
            return TableComparison(
                previous: previous, formatter: FieldFormatter(table: layout.table, timeZone: zone, recordNames: names),
                capacity: max(1 << 16, (previousData?.count ?? 0) * 9 / 8),
                header: TableSnapshot.header(
                    baseID: configuration.baseID, table: configuration.table, selection: selection, news: news))
        }
        var distrusted = Set<String>()
        do {
            if let previous, let news = try await session.changesNews(self, previous: previous, distrusted: &distrusted)
            {
                // Only what changed since the snapshot is read, and its other lines are kept as they are.
                var comparison = comparing(try await session.confirmedLayout(), news: news.next)
                try comparison.patch(changed: news.changed, left: news.left, deleted: news.deleted)
                return comparison
            }
            return try await compareWhole(in: session, previous: previous, distrusted: distrusted, comparing: comparing)
        } catch let problem as TableSnapshot.Problem {
            throw untrusted(problem)
        }
    }

    /// The snapshot compared with the whole table, read by one listing (where the news starts taken first).
    private func compareWhole(
        in session: Session, previous: TableSnapshot.Stored?, distrusted: Set<String>,
        comparing: (TableLayout, TableSnapshot.News?) -> TableComparison
    ) async throws -> TableComparison {
        let listing = try await session.projectListing(filters, view: view, command: "changes")
        let news = try await session.changesNewsStart(self, distrusted: distrusted)
        var started: TableComparison?
        // Cold, the listing goes out beside the schema read; values are formatted by the fields' types, so the
        // comparison starts once the schema has confirmed the layout (before the first page is passed on).
        let layout = try await listing.read(session.reader) { page in
            if started == nil {
                started = comparing(try await listing.inFlight?.confirmed() ?? listing.layout, news)
            }
            try started?.add(page)
        }
        var comparison = started ?? comparing(layout, news)
        if let previous {
            let missing = comparison.missing
            // A project that left the filters but is still in the table changed; it was not deleted.
            let left = selection.isEmpty ? [] : try await Self.stillThere(missing, in: session, comparison.formatter)
            let stayed = Set(left.map(\.id))
            for entry in left { try comparison.compare(entry) }
            for id in missing where !stayed.contains(id) {
                if let entry = try previous.entry(id) { comparison.changes.append(TableChange.deleted(entry)) }
            }
        }
        return comparison
    }

    /// The projects among `ids` that are still in the table, read by id a hundred a request.
    private static func stillThere(_ ids: [String], in session: Session, _ formatter: FieldFormatter) async throws
        -> [TableSnapshot.Entry]
    {
        var entries: [TableSnapshot.Entry] = []
        for chunk in ids.chunked(into: 100) {
            let found = try await session.client.projects(matching: Formula.any(chunk.map(Formula.recordID(is:)))).get()
            entries += found.map { TableSnapshot.entry($0, formatter: formatter) }
        }
        return entries
    }
}

extension Changes {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        try scanned.rejectTogether("--peek", "--reset")
        self.init(filters: try scanned.projectFilters(today: today), view: try scanned.view())
        peek = scanned.has("--peek")
        reset = scanned.has("--reset")
        format = try scanned.formatName().flatMap(Format.init(rawValue:)) ?? .text
    }
}

/// What `changes` found.
package enum ChangesOutcome: Sendable {
    /// `--reset`: what was seen is forgotten.
    case forgotten
    /// The first run: the table's projects, remembered once the snapshot is kept.
    case remembered(projects: Int, snapshot: PendingSnapshot)
    /// What changed since the last run, and the snapshot to keep once they are shown.
    case changed([TableChange], snapshot: PendingSnapshot)
}

/// The new snapshot, not yet written, and the lock on it, held until it is kept: the snapshot is replaced only after
/// the changes it replaces were shown. With `--peek`, or when the file already says what the table holds, there is
/// nothing to write.
package struct PendingSnapshot: Sendable {
    let directory: CacheDirectory
    let name: String
    let held: (any HeldLock)?
    /// The new file's bytes; nil when it is not to be replaced.
    package private(set) var bytes: [UInt8]? = nil

    func holding(_ bytes: [UInt8]) -> PendingSnapshot {
        var pending = self
        pending.bytes = bytes
        return pending
    }

    /// Replaces the snapshot on disk (durably), then lets the next run on it go; throws when it could not, as the
    /// changes will be shown again.
    package func keep() throws {
        defer { withExtendedLifetime(held) {} }
        guard let bytes else { return }
        guard directory.write(bytes, to: name, durable: true) else {
            throw AppError.output(
                "the snapshot \(directory.path)/\(name) could not be replaced; these changes will be shown again")
        }
    }
}
