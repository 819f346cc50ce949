#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// What a refresh reads: tables whole, tables whose records changed, ids deleted.
struct TableNews {
    var whole: Set<BaseCopy.Table>
    var changed: Set<BaseCopy.Table>
    var destroyed: Set<String> = []
}

/// The base's webhook, as the copy polls it: found or made once, refreshed before its 7 days run out, its payloads
/// read from this process's own cursor.
extension BaseCopy {
    /// Finds the base's webhook (the one remembered, else one made as tracker makes them) or makes it. Without the
    /// scope or the creator's permission, deletions are watched by listing ids.
    func setUpWatch() async throws { apply(try await client.basesWebhook(memory: memory)) }

    func apply(_ found: BaseWebhook) {
        switch found {
        case .unavailable(let reason):
            watch = .idListing(because: reason)
        case .hook(let hook):
            watch = .webhook(id: hook.id)
            cursor = hook.cursorForNextPayload
            hookExpires = hook.expirationTime.flatMap(ISOInstant.date)?.timeIntervalSince1970
        }
    }

    /// What the payloads since the cursor say of the tables kept (and `missing`, read whole anyway): the tables they
    /// name, and the ids destroyed. Payloads lost, or the hook gone behind tracker's back (a new one is made), read
    /// every table whole once.
    func webhookNews(_ id: String, adding missing: Set<Table>) async throws -> TableNews {
        var news = TableNews(whole: missing, changed: [])
        try await keepHookAlive()
        switch await client.webhookNews(id, from: cursor) {
        case .success(let found):
            if found.missedSome { news.whole.formUnion(keptTables) }
            news.destroyed = Set(found.destroyed.values.joined())
            news.changed = Set(
                keptTables.filter { table in
                    guard let tableID = tableIDs[table] else { return !found.isEmpty }
                    return found.changed[tableID] != nil
                })
            cursor = found.next
        case .failure(let error):
            guard case .http(let status, _) = error, status == 404 else { throw error }
            memory?.remember(nil)
            watch = nil
            try await setUpWatch()
            news.whole.formUnion(keptTables)
        }
        return news
    }

    /// Refreshes the hook once fewer than 6 of its 7 days are left, so it never runs out while anyone polls it.
    private func keepHookAlive() async throws {
        guard case .webhook(let id) = watch, let expires = hookExpires,
            let now = client.network.serverClock.now(), expires - now < Self.refreshHookBelow
        else { return }
        if case .success(let time) = await client.refreshWebhook(id) {
            hookExpires = time.flatMap(ISOInstant.date)?.timeIntervalSince1970
        }
    }
}
