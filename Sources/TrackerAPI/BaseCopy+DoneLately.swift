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
    ///
    /// A reader of the team's copy waits for the copy instead: its header brings the poller's answer.
    public func completedIDs(since: String, formula: String) async throws -> Set<String> {
        if doneLately[since] == nil, let team = team.withLock({ $0 }) { await team.awaitLoaded(self) }
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
        return lately(since) ?? []
    }

    /// What Airtable answered for `since`, with what the copy saw turn complete after it (less the margin, which only
    /// adds what it also said); nil when it was not asked.
    private func lately(_ since: String) -> Set<String>? {
        guard let answer = doneLately[since] else { return nil }
        let seen = doneSeen.filter { $0.value >= answer.asked && $0.value >= since }.keys
        return answer.ids.union(seen)
    }

    /// The done-lately answers as the team's copy's header keeps them (`done:<since>` → `<refreshed> <ids>`), so
    /// readers never ask Airtable what the poller asked: tagged with the refresh they go with.
    package func doneHeader(refreshed: String) -> [(String, String)] {
        doneLately.keys.sorted().map { since in
            ("done:" + since, ([refreshed] + (lately(since) ?? []).sorted()).joined(separator: " "))
        }
    }

    /// The poller's done-lately answers from the team's copy's header, those that go with its last refresh (an answer
    /// left from another day, or by another poller, is not taken).
    func adoptDone(_ header: [String: String]) {
        guard let refreshed = header["refreshed"], !refreshed.isEmpty else { return }
        for (key, value) in header where key.hasPrefix("done:") {
            var words = value.split(separator: " ").map(String.init)
            guard words.first == refreshed else { continue }
            words.removeFirst()
            // Everything seen after this is seen by this copy applying the refreshes after it.
            doneLately[String(key.dropFirst("done:".count))] = ("", Set(words))
        }
    }
}
