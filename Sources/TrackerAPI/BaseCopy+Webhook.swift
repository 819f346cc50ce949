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

/// Where the copy reads its news from: the watch, the webhook's cursor, and the hook's known expiry.
struct WatchState {
    var watch: BaseCopy.DeletionWatch
    var cursor: Int
    var expires: Double?
}

/// The base's webhook, as the copy polls it: found or made once, its payloads read from this process's own cursor,
/// and trusted only while it is alive and tracker's: enabled, its known expiry (moved 7 days on by each poll) ahead of
/// the server's time, its payloads free of errors. Otherwise another is found or made and the tables read whole.
extension BaseCopy {
    /// Finds the base's webhook (the one remembered, else one made as tracker makes them) or makes it. Without the
    /// scope or the creator's permission, deletions are watched by listing ids.
    func watchState() async throws -> WatchState {
        state(of: try await client.basesWebhook(memory: memory, distrusted: distrustedHooks))
    }

    func state(of found: BaseWebhook) -> WatchState {
        switch found {
        case .unavailable(let reason):
            return WatchState(watch: .idListing(because: reason), cursor: 1, expires: nil)
        case .hook(let hook):
            // A hook made without an expiry in its answer lives 7 days from now, as Airtable's do.
            let expires = hook.expires ?? client.network.serverClock.now().map { $0 + WebhookLife.lifetime }
            return WatchState(watch: .webhook(id: hook.id), cursor: hook.cursorForNextPayload, expires: expires)
        }
    }

    func apply(_ state: WatchState) {
        watch = state.watch
        cursor = state.cursor
        hookExpires = state.expires
    }

    /// What the payloads since the cursor say of the tables kept (and `missing`, read whole anyway): the tables they
    /// name, and the ids destroyed; and where the next refresh reads from, applied only if this one succeeds. A hook
    /// that is gone, broken, or was past its known expiry when it answered (it may have been disabled and silent)
    /// is replaced, and every table read whole once.
    func webhookNews(_ id: String, adding missing: Set<Table>) async throws -> (TableNews, WatchState) {
        var news = TableNews(whole: missing, changed: [])
        try await keepHookAlive()
        switch await client.webhookNews(id, from: cursor) {
        case .success(let found):
            if let failure = found.failure {
                // Its payloads said it can no longer report changes: never adopted again by this process.
                distrustedHooks.insert(id)
                _ = failure
                return try await replacingHook(adding: missing)
            }
            if let expires = hookExpires, let answered = found.answeredAt, answered >= expires {
                return try await replacingHook(adding: missing)
            }
            if found.missedSome { news.whole.formUnion(keptTables) }
            news.destroyed = Set(found.destroyed.values.joined())
            news.changed = Set(
                keptTables.filter { table in
                    guard let tableID = tableIDs[table] else { return !found.isEmpty }
                    return found.changed[tableID] != nil
                })
            // Listing payloads moved an active hook's expiry 7 days on from the answer.
            let expires = found.answeredAt.map { $0 + WebhookLife.lifetime } ?? hookExpires
            return (news, WatchState(watch: .webhook(id: id), cursor: found.next, expires: expires))
        case .failure(let error):
            guard case .http(404, _) = error else { throw error }
            return try await replacingHook(adding: missing)
        }
    }

    /// The hook can no longer be trusted: another is found or made, and every table is read whole.
    private func replacingHook(adding missing: Set<Table>) async throws -> (TableNews, WatchState) {
        let state = try await watchState()
        return (TableNews(whole: missing.union(keptTables), changed: []), state)
    }

    /// Refreshes the hook as every hook is kept (`WebhookLife`). A token whose user may poll but not refresh (an
    /// editor) keeps it alive by polling alone, so a refusal changes nothing.
    private func keepHookAlive() async throws {
        guard case .webhook(let id) = watch, let now = client.network.serverClock.now() else { return }
        if case .renewed(let expires?) = await WebhookLife(id: id, expires: hookExpires).refresh(
            through: client, now: now)
        {
            hookExpires = expires
        }
    }
}
