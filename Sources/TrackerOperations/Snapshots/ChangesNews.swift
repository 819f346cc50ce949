#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

/// What changed in the table since a snapshot, as Airtable's news tells it (docs/contract.md "What changed, not the
/// whole table"): the base's webhook says which records changed and which were deleted (without one, a listing of ids
/// says which are gone), and one listing reads the records changed since the snapshot's time.
package struct ChangesNews {
    /// Changed since, and picked by the selection.
    package var changed: [Project]
    /// Changed since, and no longer picked: changed, and out of the snapshot.
    package var left: [Project]
    package var deleted: Set<String>
    /// From where the next run reads.
    package var next: TableSnapshot.News
}

extension Session {
    /// The news since `previous`; nil when the snapshot must be compared with the whole table: it has no news position,
    /// a view picks the projects (only Airtable knows its filters), the selection moves with the day, or the news was
    /// lost (the webhook made again, payloads older than the cursor gone, the hook disabled or broken), or the
    /// snapshot's time reads as impossible (ahead of the server's clock). A hook whose payloads said it broke is added
    /// to `distrusted`, so the whole read that follows does not adopt it again.
    package func changesNews(
        _ options: Changes, previous: TableSnapshot.Stored, distrusted: inout Set<String>
    ) async throws -> ChangesNews? {
        guard let news = previous.news, options.view == nil, !options.filters.movesWithTheDay else { return nil }
        let layout = try await self.confirmedLayout()
        let client = self.client
        var deleted = Set<String>()
        var tableChanged = true
        var next = TableSnapshot.News(since: news.since)
        let memory = Session.webhookMemory(self.configuration, in: self.surroundings)
        let watch = try await client.basesWebhook(memory: memory)
        // The listing told the server's time: a snapshot's time ahead of it would hide every change until then.
        guard let since = ISOInstant.date(news.since)?.timeIntervalSince1970,
            since <= (client.serverClock.now() ?? Date().timeIntervalSince1970)
        else { return nil }
        switch watch {
        case .hook(let hook):
            // A hook other than the snapshot's (its own was disabled, expired or forgotten) holds none of its news.
            guard hook.id == news.hook, let cursor = news.cursor else { return nil }
            let found = try await client.webhookNews(hook.id, from: cursor).get()
            if found.failure != nil {
                distrusted.insert(hook.id)
                memory.remember(nil)
                return nil
            }
            if found.missedSome { return nil }
            if let table = layout.table?.id {
                tableChanged = found.changed[table] != nil
                deleted = found.destroyed[table] ?? []
            } else {
                tableChanged = !found.isEmpty
                deleted = Set(found.destroyed.values.joined())
            }
            (next.hook, next.cursor) = (hook.id, found.next)
        case .unavailable:
            // The ids now: every one of the snapshot's not among them is gone.
            var ids = Set<String>()
            try await client.listProjects(ListQuery(fields: [layout.fields.name])) { ids.formUnion($0.map(\.id)) }
            deleted = Set(previous.ids.filter { !ids.contains($0) })
        }
        let sent = BaseCopy.mark(client.serverClock)
        var changed: [Project] = []
        if tableChanged {
            try await client.listProjects(ListQuery(filterByFormula: BaseCopy.changedSince(news.since))) {
                changed += $0
            }
        }
        // Moved on only past records read: with none, the same window holds nothing new, and the snapshot (its header
        // included) stays byte for byte what it was.
        if !changed.isEmpty, let sent { next.since = sent }
        let filters = try await self.resolvingClient(options.filters, command: "changes")
        let keep = try await self.peopleMatch(filters)
        let selection = Formula.selection(filters, today: today, fields: layout.fields)
        let picks: (Project) -> Bool = { selection.keeps($0) && (keep?($0) ?? true) }
        return ChangesNews(
            changed: changed.filter(picks), left: changed.filter { !picks($0) }, deleted: deleted, next: next)
    }

    /// Where the news starts for a whole read about to go out: the base's webhook's cursor now and the server's
    /// time; nil when the next run must read the whole table anyway.
    package func changesNewsStart(_ options: Changes, distrusted: Set<String>) async throws -> TableSnapshot
        .News?
    {
        guard options.view == nil, !options.filters.movesWithTheDay else { return nil }
        let client = self.client
        var news = TableSnapshot.News(since: "")
        let memory = Session.webhookMemory(self.configuration, in: self.surroundings)
        if case .hook(let hook) = try await client.basesWebhook(memory: memory, distrusted: distrusted) {
            (news.hook, news.cursor) = (hook.id, hook.cursorForNextPayload)
        }
        guard let since = BaseCopy.mark(client.serverClock) else { return nil }
        news.since = since
        return news
    }
}
