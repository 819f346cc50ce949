#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

/// The projects list's filters and view pick, in one listing filtered on Airtable: what `changes`, `calendar` and
/// `timeline` read.
package struct ProjectListing {
    package var query: ListQuery
    /// The layout the names were looked up in (read again if a name was missing from what tracker remembered).
    package var layout: TableLayout
    /// The people asked for by email or as `me`, which formulas cannot see, so they are matched here.
    package var keep: (@Sendable (Project) -> Bool)?
    /// The schema read sent beside the listing, which must confirm the layout before a page is passed on.
    package var inFlight: SchemaInFlight? = nil

    /// Reads every page, passing on the projects of each; returns the layout, as the schema confirmed it.
    @discardableResult
    package func read(_ reader: any RecordReader, onPage: ([Project]) async throws -> Void) async throws -> TableLayout
    {
        var confirmed: TableLayout?
        func confirm() async throws -> TableLayout {
            if let confirmed { return confirmed }
            let layout = try await inFlight?.confirmed() ?? self.layout
            confirmed = layout
            return layout
        }
        try await reader.listProjects(query) { page in
            _ = try await confirm()
            try await onPage(keep.map { page.filter($0) } ?? page)
        }
        return try await confirm()
    }
}

extension Session {
    /// One listing of what `filters` and `view` pick, with `terms` added to the formula and `sort` applied by
    /// Airtable, fetching only the fields `words` name (all of them when nil, or without the schema).
    package func projectListing(
        _ filters: ProjectFilters, view: String?, command: String, terms: [String] = [],
        also: Selection<Project>? = nil, sort: [(field: String, direction: ListQuery.Direction)] = [],
        showing words: [FieldMap.Word]? = nil
    ) async throws -> ProjectListing {
        let fields = self.layout.fields
        let (lookup, name) = try await self.lookUpSelection(filters, view: view, command: command)
        let filters = try await self.resolvingClient(filters, command: command)
        let keep = try await self.peopleMatch(filters)
        let selection = Formula.selection(filters, today: today, fields: fields)
        let formula = terms + [also?.formula, selection.formula].compactMap { $0 }
        // Without the schema tracker cannot tell which fields exist, and naming a missing one fails the request.
        let fetched =
            lookup.layout.table == nil
            ? nil
            : words.map { words in
                (words + (keep == nil ? [] : [.lead, .team, .client])).compactMap { fields[$0] }
            }
        var query = ListQuery(
            filterByFormula: formula.isEmpty ? nil : Formula.all(formula), sort: sort, fields: fetched, view: name)
        // A copy answers only what the selection's predicate means; the terms added here have none.
        if terms.isEmpty {
            let alsoKeeps = also?.keeps
            query.keeps = .projects { selection.keeps($0) && (alsoKeeps?($0) ?? true) }
        }
        return ProjectListing(query: query, layout: lookup.layout, keep: keep, inFlight: self.inFlight)
    }

    /// The filters with `--client` looked up in the Clients table: its id (what projects are matched by) and its name
    /// (what narrows the listing on Airtable). An unknown client is 64 with close names.
    package func resolvingClient(_ filters: ProjectFilters, command: String) async throws -> ProjectFilters {
        guard let typed = filters.client, filters.clientID == nil else { return filters }
        let client = try await self.client(named: typed, command: command)
        var resolved = filters
        resolved.clientID = client.id
        resolved.clientName = client.name
        return resolved
    }

    /// The client `typed` names (a name in any case, or a record id) in the table the Client field links to: its id,
    /// its name when known, and that table. An unknown one is 64 with close names.
    package func client(named typed: String, command: String) async throws -> (
        id: String, name: String?, table: String
    ) {
        let checker = try await self.checker(command: command)
        let table = try checker.linkTarget(for: .client).table
        guard let id = try await checker.clientIDs([typed]).first else {
            throw AppError.usage("unknown client \"\(typed)\"", command: command)
        }
        return (id, self.knowledge.recordNames(in: table)[id], table)
    }

    /// What tracker checks itself of the person filters (an email, `me`, a team member's exact name); asks who the
    /// token is when `me` or `--mine` needs it.
    package func peopleMatch(_ filters: ProjectFilters) async throws -> (@Sendable (Project) -> Bool)? {
        let me = filters.needsMe ? try await self.knowledge.me() : nil
        return filters.localMatch(me: me)
    }

    /// The projects with a due date, soonest due first; open ones only unless `includesComplete` or a filter says
    /// otherwise (a base with no completion field has only open projects).
    package func datedListing(
        _ filters: ProjectFilters, view: String?, includesComplete: Bool, showing words: [FieldMap.Word],
        command: String
    ) async throws -> ProjectListing {
        let fields = self.layout.fields
        let due = try fields.required(.due, for: command, command: command)
        var filters = filters
        if !includesComplete && filters.complete == nil && fields.completion != nil { filters.complete = false }
        return try await self.projectListing(
            filters, view: view, command: command, terms: [Formula.field(due)], sort: [(due, .asc)],
            showing: words)
    }
}
