#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// "Done lately": no record says when it was completed, so Airtable is asked once for each `since`
/// (`LAST_MODIFIED_TIME({Complete})`), and the copy notes what turns complete after that.
extension BaseCopy {
    /// Notes the projects among `projects` that turned complete (against the copy as it is), or opened again.
    func noteCompletion(_ projects: [Project]) {
        guard let copy = projectCopy else { return }
        let now = client.network.serverClock.now().map { ISOInstant.text(Date(timeIntervalSince1970: $0)) } ?? ""
        for project in projects {
            if project.isComplete {
                if copy[project.id]?.isComplete != true { doneSeen[project.id] = now }
            } else {
                doneSeen[project.id] = nil
            }
        }
    }

    /// The projects whose completion changed at `since` or later and that may be complete now: `formula` asks Airtable
    /// once for each `since` (a day's), and what turns complete after that the copy sees itself.
    public func completedIDs(since: String, formula: String) async throws -> Set<String> {
        if doneLately[since] == nil {
            let asked = markNow() ?? ""
            var ids = Set<String>()
            try await client.listProjects(ListQuery(filterByFormula: formula, fields: [client.fields.name])) {
                ids.formUnion($0.map(\.id))
            }
            // Yesterday's answers are not asked for again.
            if doneLately.count >= 4 { doneLately = [:] }
            doneLately[since] = (asked, ids)
        }
        let answer = doneLately[since]!
        // Seen turning complete after Airtable answered (less the margin, which only adds what it also said).
        let seen = doneSeen.filter { $0.value >= answer.asked && $0.value >= since }.keys
        return answer.ids.union(seen)
    }
}
