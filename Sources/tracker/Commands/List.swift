#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// `tracker list`: streams every matching project in the chosen format, page by page.
struct List: Command {
    static let spec = CommandSpec(
        name: "list", summary: "List projects: what is due, overdue and done.",
        usage: [
            "tracker list [--overdue] [--due-before DATE] [--due-within DAYS] [--complete | --incomplete]",
            "             [--category NAME] [--lead NAME|EMAIL] [--search TEXT] [--view NAME]",
            "             [--sort FIELD [--desc]] [--limit N] [--format table|tsv|csv|json|ndjson] [--json]",
            "             [--columns COL[,COL]...]",
        ],
        flags: CommandSpec.filterFlags + [
            FlagSpec(
                name: "--sort", value: "FIELD", choices: SortField.allCases.map(\.rawValue), checksChoices: false,
                help: "order by due, name, kickoff, category or any field of the base (done by Airtable)"),
            FlagSpec(name: "--desc", help: "with --sort: largest first"),
            FlagSpec(name: "--limit", value: "N", minimum: 1, help: "at most N projects"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: ListFormat.allCases.map(\.rawValue),
                help: "table on a terminal, tsv when piped; or csv, json, ndjson"),
            FlagSpec(name: "--json", help: "the same as --format json: one JSON array of project objects"),
            FlagSpec(
                name: "--columns", value: "COLS", choices: ListColumn.standard.map(\.rawValue), checksChoices: false,
                help: "the table, TSV and CSV columns, in order, e.g. name,due,lead-email,Budget"),
        ],
        examples: [
            "tracker list", "tracker list --overdue", "tracker list --due-within 7 --incomplete --sort due",
            "tracker list --search logo --format csv > logos.csv",
            "tracker list --json | jq '.[] | select(.status == \"overdue\") | .name'",
            "tracker list --view \"Active\" --sort Budget --desc --columns name,due,Budget",
        ],
        notes: [
            "Filters combine with AND and run on Airtable, so only matching projects are sent. Piped output is",
            "tab-separated, one project a line, no header: id name due status category lead-name. Columns:",
            "id name due status category lead-name lead-email kickoff team clients notes complete createdTime,",
            "and the base's own fields by name (any case).",
        ])

    /// The explicit format; nil picks a table on a terminal and TSV otherwise.
    var format: ListFormat? = nil
    var filters = ProjectFilters()
    var sort: SortKey? = nil
    var descending = false
    var limit: Int? = nil
    /// The table, TSV and CSV columns, in order.
    var columns: [ListColumn] = ListColumn.defaults
    /// A saved view of the table, whose filters and order Airtable applies first.
    var view: String? = nil

    func run(_ runner: Runner) async throws { try await runner.list(self) }
}

/// What `list --sort` orders by: one of tracker's fields, or a field of the base by name.
enum SortKey: Equatable, Sendable {
    case word(SortField)
    case field(String)
}

extension List {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        filters = try scanned.projectFilters(today: today)
        if scanned.has("--desc") && !scanned.has("--sort") {
            throw AppError.usage("--desc needs --sort FIELD", command: "list")
        }
        sort = try scanned.nonEmpty("--sort").map { text in
            SortField(rawValue: text.lowercased()).map(SortKey.word)
                ?? .field(text.trimmingWhitespace())
        }
        descending = scanned.has("--desc")
        limit = try scanned.wholeNumber("--limit")
        view = try scanned.view()
        if let text = scanned.last("--columns") {
            columns = try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
                let name = item.trimmingWhitespace()
                guard !name.isEmpty else {
                    throw AppError.usage(
                        "--columns has an empty name; it takes \(ListColumn.standard.map(\.rawValue).joined(separator: " ")) or the base's field names",
                        command: "list")
                }
                return ListColumn(standardName: name) ?? .field(name)
            }
            if scanned.has("--json") || ["json", "ndjson"].contains(scanned.last("--format") ?? "") {
                throw AppError.usage(
                    "--columns is for the table, tsv and csv; JSON carries every field", command: "list")
            }
        }
        format = try scanned.formatName().flatMap(ListFormat.init(rawValue:))
    }
}

extension Runner {
    /// `tracker list`: streams every matching project in the chosen format, page by page.
    fileprivate func list(_ options: List) async throws {
        // Cold, the listing goes out beside the schema read unless a name typed needs the schema to be found.
        let namesFields = options.columns.contains { if case .field = $0 { true } else { false } }
        let sortsByField = if case .field? = options.sort { true } else { false }
        let base = try await prepareBase(readingBeside: options.view == nil && !namesFields && !sortsByField)
        do {
            try await base.writing(recheck: { fresh in _ = try await listPlan(options, fresh) }) {
                try await list(options, base: base)
            }
        } catch AppError.http(422, let body) where body.type == "VIEW_NAME_NOT_FOUND" {
            // Without the schema tracker cannot list the views, but a view that is not there is still a usage error.
            throw AppError.usage(
                "--view: the table has no view \"\(options.view ?? "")\" (Airtable: \(body.message ?? "VIEW_NAME_NOT_FOUND")); 'tracker doctor' lists the views when the token may read the schema",
                command: "list")
        }
    }

    /// What a listing asks Airtable for and shows, every field it names checked against the base.
    private struct ListPlan {
        var query: ListQuery
        var columns: [ListColumn]
        var keep: (@Sendable (Project) -> Bool)?
    }

    private func listPlan(_ options: List, _ base: Session) async throws -> ListPlan {
        var options = options
        options.filters = try await base.resolvingClient(options.filters, command: "list")
        let fields = base.layout.fields
        var (lookup, view) = try await base.lookUpSelection(options.filters, view: options.view, command: "list")
        var sort: [(field: String, direction: ListQuery.Direction)] = []
        let direction: ListQuery.Direction = options.descending ? .desc : .asc
        switch options.sort {
        case .word(let key)?:
            sort = [(try requireField(key.word, for: "--sort \(key.rawValue)", in: fields, command: "list"), direction)]
        case .field(let name)?:
            sort = [(try await lookup.field(name, flag: "--sort"), direction)]
        case nil: break
        }
        var columns: [ListColumn] = []
        for column in options.columns {
            guard case .field(let name) = column else {
                columns.append(column)
                continue
            }
            let field = try await lookup.field(name, flag: "--columns")
            columns.append(
                fields.word(forFieldNamed: field).flatMap { fields[$0] == field ? Self.column(for: $0) : nil }
                    ?? .field(field))
        }
        let keep = try await base.peopleMatch(options.filters)
        var query = ListQuery.picking(
            Formula.selection(options.filters, today: today, fields: fields),
            fields: fetchedFields(options, columns: columns, layout: lookup.layout))
        query.sort = sort
        // One more than the limit tells whether more match. People by email or as `me` are matched here, not by
        // Airtable.
        query.maxRecords = keep == nil ? options.limit.map { $0 + 1 } : nil
        query.view = view
        return ListPlan(query: query, columns: columns, keep: keep)
    }

    /// tracker's column for a field that is one of its words.
    private static func column(for word: FieldMap.Word) -> ListColumn {
        switch word {
        case .name: .name
        case .category: .category
        case .complete: .complete
        case .kickoff: .kickoff
        case .due: .due
        case .lead: .leadName
        case .team: .team
        case .client: .clients
        case .notes: .notes
        }
    }

    /// The fields a listing shows: all of them for JSON, else only those its columns need, when the schema says they
    /// exist (Airtable refuses a request naming a field the table lacks).
    private func fetchedFields(_ options: List, columns: [ListColumn], layout: TableLayout) -> [String]? {
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        guard layout.table != nil, format != .json, format != .ndjson else { return nil }
        let fields = layout.fields
        var words: [FieldMap.Word] = [.name, .due, .complete]
        var others: [String] = []
        if options.filters.localMatch(me: nil) != nil { words += [.lead, .team, .client] }
        for column in columns {
            switch column {
            case .category: words.append(.category)
            case .leadName, .leadEmail: words.append(.lead)
            case .kickoff: words.append(.kickoff)
            case .team: words.append(.team)
            case .clients: words.append(.client)
            case .notes: words.append(.notes)
            case .field(let name): others.append(name)
            default: break
            }
        }
        var names: [String] = []
        for name in words.compactMap({ fields[$0] }) + others where !names.contains(name) { names.append(name) }
        return names
    }

    private func list(_ options: List, base: Session) async throws {
        let client = base.client
        let plan = try await listPlan(options, base)
        let format = options.format ?? (output.isStdoutTerminal ? .table : .tsv)
        var renderer = makeRenderer(
            format, today: today, style: style, width: output.terminalWidth ?? 80, columns: plan.columns,
            formatter: FieldFormatter(table: base.layout.table, timeZone: context.timeZone))
        var tally: [ProjectStatus: Int] = [:]
        let keep = plan.keep
        let query = plan.query
        var remaining = options.limit ?? Int.max
        var moreMatch = false
        let progress = ListingProgress(status: output.isStdoutTerminal ? status : nil)
        defer { progress.stop() }
        var names: [String] = []
        var ids: [(id: String, name: String)] = []
        // Asked for tasks or days left: one listing of the Tasks table beside the projects', never one per project.
        let taskReading = try progressRead(plan.columns, base: base)
        defer { taskReading?.cancel() }
        do {
            try await client.listProjects(query) { page in
                _ = try await base.confirmedLayout()
                var page = page
                if let taskReading {
                    let tasks = try await taskReading.value
                    for index in page.indices { page[index].taskProgress = TaskProgress(tasks[page[index].id] ?? []) }
                }
                progress.read(page.count)
                for project in page.prefix(NamesFile.projectLimit - names.count) {
                    names.append(project.name ?? "")
                    ids.append((project.id, project.name ?? ""))
                }
                if let keep { page = page.filter(keep) }
                if page.count > remaining {
                    moreMatch = true
                    page = Array(page.prefix(remaining))
                }
                remaining -= page.count
                for project in page { tally[project.status(today: today), default: 0] += 1 }
                let text = renderer.render(page: page)
                if !text.isEmpty {
                    progress.stop()
                    try output.standardOutput(text)
                }
                if moreMatch { throw ListingComplete() }
            }
        } catch is ListingComplete {}
        _ = try await base.confirmedLayout()
        progress.stop()
        // Only a listing of the whole table may forget names; any other adds what it saw.
        let isWholeTable = options.filters.isEmpty && options.view == nil && !moreMatch && options.limit == nil
        base.rememberNames(names, ids: ids, replacing: isWholeTable)
        let closing = renderer.finish()
        if !closing.isEmpty { try output.standardOutput(closing) }
        guard format == .table else { return }
        var summary = Self.summary(tally)
        if moreMatch, let limit = options.limit { summary += " (showing \(limit); more match)" }
        output.standardError(summary + "\n")
        if !renderer.leftOut.isEmpty {
            let names = renderer.leftOut.map(\.title).joined(separator: " and ")
            let example = (plan.columns.filter { !renderer.leftOut.contains($0) }.prefix(2) + renderer.leftOut)
                .map(\.rawValue).joined(separator: ",")
            output.standardError(
                "tracker: \(names) left out to fit \(output.terminalWidth ?? 80) columns (try --columns \(example))\n")
        }
    }

    /// The tasks of every project, read beside the listing when `columns` show progress; nil otherwise.
    private func progressRead(_ columns: [ListColumn], base: Session) throws -> Task<[String: [ProjectTask]], Error>? {
        guard columns.contains(.tasks) || columns.contains(.daysLeft) else { return nil }
        return base.taskProgressRead(try base.taskLayout())
    }

    /// Stops a listing once `--limit` projects were shown and one more told that more match.
    private struct ListingComplete: Error {}

    static func summary(_ tally: [ProjectStatus: Int]) -> String {
        let total = tally.values.reduce(0, +)
        guard total > 0 else { return "No projects." }
        let parts = ProjectStatus.allCases.compactMap { status in tally[status].map { "\($0) \(status.rawValue)" } }
        return "\(total) project\(total == 1 ? "" : "s"): \(parts.joined(separator: ", "))"
    }
}

/// "read 1,200 projects…" on the status line while a listing has shown nothing for a second (on a terminal only).
final class ListingProgress: Sendable {
    private let state = Locked((read: 0, stopped: false))
    private let ticker: Task<Void, Never>?

    init(status: StatusLine?) {
        guard let status else {
            ticker = nil
            return
        }
        let state = self.state
        ticker = Task {
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            while !Task.isCancelled {
                // Checked and drawn under one lock, so nothing is drawn once the listing has printed.
                let stopped = state.withLock { state -> Bool in
                    if !state.stopped {
                        status.show("tracker: read \(state.read.formatted()) project\(state.read == 1 ? "" : "s")…")
                    }
                    return state.stopped
                }
                if stopped { return }
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
    }

    func read(_ count: Int) { state.withLock { $0.read += count } }

    /// Ends the progress; the next write clears its line.
    func stop() {
        state.withLock { $0.stopped = true }
        ticker?.cancel()
    }
}
