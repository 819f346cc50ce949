import Foundation
import TrackerAPI
import TrackerModel

/// The projects with a due date that list's filters pick, soonest due first: what `calendar` and `timeline` show.
struct DatedListing {
    var query: ListQuery
    /// The layout the names were looked up in (read again if a name was missing from what tracker remembered).
    var layout: TableLayout
    /// A lead asked for by email, which formulas cannot see, so it is matched here.
    var leadEmail: String?

    /// Reads every page, passing on the projects of each.
    func read(_ client: ProjectAPIClient, onPage: ([Project]) async throws -> Void) async throws {
        try await client.listProjects(query) { page in
            try await onPage(leadEmail.map { email in page.filter { $0.lead?.email?.lowercased() == email } } ?? page)
        }
    }
}

extension Runner {
    /// One listing, filtered and sorted on Airtable, fetching only the fields `words` name; open projects only unless
    /// `includesComplete` or a filter says otherwise.
    func datedListing(
        _ filters: ProjectFilters, view: String?, includesComplete: Bool, showing words: [FieldMap.Word], base: Base,
        command: String
    ) async throws -> DatedListing {
        let fields = base.layout.fields
        let due = try requireField(.due, for: command, in: fields, command: command)
        let (lookup, name) = try await lookUpSelection(filters, view: view, base: base, command: command)
        var filters = filters
        // A base with no completion field has only open projects.
        if !includesComplete && filters.complete == nil && fields.completion != nil { filters.complete = false }
        let wanted = words + (filters.leadEmail == nil ? [] : [.lead])
        let query = ListQuery(
            filterByFormula: Formula.all(
                [Formula.field(due)] + [Formula.matching(filters, today: today, fields: fields)].compactMap { $0 }),
            sort: [(due, .asc)],
            // Without the schema tracker cannot tell which fields exist, and naming a missing one fails the request.
            fields: lookup.layout.table == nil ? nil : wanted.compactMap { fields[$0] }, view: name)
        return DatedListing(query: query, layout: lookup.layout, leadEmail: filters.leadEmail)
    }
}
