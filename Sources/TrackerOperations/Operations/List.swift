import TrackerAPI
import TrackerModel

/// `tracker list`: streams every matching project in the chosen format, page by page.
package struct List: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "list", facts: [.readsTeamCopy], summary: "List projects: what is due, overdue and done.",
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
    package var format: ListFormat? = nil
    package var filters = ProjectFilters()
    package var sort: SortKey? = nil
    package var descending = false
    package var limit: Int? = nil
    /// The table, TSV and CSV columns, in order.
    package var columns: [ListColumn] = ListColumn.defaults
    /// A saved view of the table, whose filters and order Airtable applies first.
    package var view: String? = nil

    /// Each value given.
    package init(
        format: ListFormat? = nil, filters: ProjectFilters = ProjectFilters(), sort: SortKey? = nil,
        descending: Bool = false, limit: Int? = nil, columns: [ListColumn] = ListColumn.defaults, view: String? = nil
    ) {
        self.format = format
        self.filters = filters
        self.sort = sort
        self.descending = descending
        self.limit = limit
        self.columns = columns
        self.view = view
    }

    // Cold, the listing goes out beside the schema read unless a name typed needs the schema to be found.
    package var opening: SessionOpening {
        let namesFields = columns.contains { if case .field = $0 { true } else { false } }
        let sortsByField = if case .field? = sort { true } else { false }
        return SessionOpening(readingBeside: view == nil && !namesFields && !sortsByField)
    }

    /// Every matching project, collected (a face that shows pages as they come runs `run(in:each:)`).
    package func run(in session: Session) async throws -> Listing {
        var projects: [Project] = []
        var listing = try await run(in: session) { event in
            if case .page(let page) = event { projects += page }
        }
        listing.projects = projects
        return listing
    }
}

/// What `list --sort` orders by: one of tracker's fields, or a field of the base by name.
package enum SortKey: Equatable, Sendable {
    case word(SortField)
    case field(String)
}

extension List {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
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

extension List {
    /// Streams every matching project page by page to `each`, after the columns the listing shows; returns what it
    /// read. Nothing is handed on before the schema read beside it confirms the layout it assumed.
    package func run(in session: Session, each: (ListingEvent) throws -> Void) async throws -> Listing {
        let options = self
        do {
            return try await session.reading(recheck: { fresh in _ = try await listPlan(options, fresh) }) {
                try await list(options, session: session, each: each)
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
        package var query: ListQuery
        package var columns: [ListColumn]
        package var keep: (@Sendable (Project) -> Bool)?
    }

    private func listPlan(_ options: List, _ session: Session) async throws -> ListPlan {
        var options = options
        options.filters = try await session.resolvingClient(options.filters, command: "list")
        let fields = session.layout.fields
        var (lookup, view) = try await session.lookUpSelection(options.filters, view: options.view, command: "list")
        var sort: [(field: String, direction: ListQuery.Direction)] = []
        let direction: ListQuery.Direction = options.descending ? .desc : .asc
        switch options.sort {
        case .word(let key)?:
            sort = [(try fields.required(key.word, for: "--sort \(key.rawValue)", command: "list"), direction)]
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
        let keep = try await session.peopleMatch(options.filters)
        var query = ListQuery.picking(
            Formula.selection(options.filters, today: session.today, fields: fields),
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
        let format = options.format ?? .tsv
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

    private func list(_ options: List, session: Session, each: (ListingEvent) throws -> Void) async throws -> Listing {
        let reader = session.reader
        let plan = try await listPlan(options, session)
        try each(.columns(plan.columns))
        var listing = Listing()
        let keep = plan.keep
        let query = plan.query
        var remaining = options.limit ?? Int.max
        var names: [String] = []
        var ids: [(id: String, name: String)] = []
        let today = session.today
        // Asked for tasks or days left: one listing of the Tasks table beside the projects', never one per project.
        let taskReading = try progressRead(plan.columns, session: session)
        defer { taskReading?.cancel() }
        do {
            try await reader.listProjects(query) { page in
                _ = try await session.confirmedLayout()
                var page = page
                if let taskReading {
                    let tasks = try await taskReading.value
                    for index in page.indices { page[index].taskProgress = TaskProgress(tasks[page[index].id] ?? []) }
                }
                try each(.read(page.count))
                for project in page.prefix(NamesFile.projectLimit - names.count) {
                    names.append(project.name ?? "")
                    ids.append((project.id, project.name ?? ""))
                }
                if let keep { page = page.filter(keep) }
                if page.count > remaining {
                    listing.moreMatch = true
                    page = Array(page.prefix(remaining))
                }
                remaining -= page.count
                for project in page { listing.tally[project.status(today: today), default: 0] += 1 }
                try each(.page(page))
                if listing.moreMatch { throw ListingComplete() }
            }
        } catch is ListingComplete {}
        listing.layout = try await session.confirmedLayout()
        // Only a listing of the whole table may forget names; any other adds what it saw.
        let isWholeTable = options.filters.isEmpty && options.view == nil && !listing.moreMatch && options.limit == nil
        session.rememberNames(names, ids: ids, replacing: isWholeTable)
        listing.columns = plan.columns
        return listing
    }

    /// The tasks of every project, read beside the listing when `columns` show progress; nil otherwise.
    private func progressRead(_ columns: [ListColumn], session: Session) throws -> Task<[String: [ProjectTask]], Error>?
    {
        guard columns.contains(.tasks) || columns.contains(.daysLeft) else { return nil }
        return session.taskProgressRead(try session.taskLayout())
    }

    /// Stops a listing once `--limit` projects were shown and one more told that more match.
    private struct ListingComplete: Error {}

}

/// What a listing hands a face as it reads: the columns it shows (first), how many projects each page had before
/// the people filters, and each page of projects that match.
package enum ListingEvent {
    case columns([ListColumn])
    case read(Int)
    case page([Project])
}

/// What a listing read: how many of each status, whether more match than `--limit` showed, the layout it was read
/// with (confirmed) and the columns it showed; the projects themselves when collected.
package struct Listing: Sendable {
    package var tally: [ProjectStatus: Int] = [:]
    package var moreMatch = false
    package var layout: TableLayout? = nil
    package var columns: [ListColumn] = []
    package var projects: [Project] = []
}
