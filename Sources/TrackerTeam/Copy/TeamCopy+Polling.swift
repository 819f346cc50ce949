import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// The poller's side: the face's own refresh, run while this process holds the lease, applied to Redis at once.
extension TeamCopy {
    /// One refresh of the copy from Airtable, applied to the team's copy in one script fenced by the lease: what
    /// changed, or, when there is no sound copy in Redis to change, the tables read whole and swapped in.
    func poll() async throws {
        guard let copy else { return }
        settleLostRebuild()
        takingOver(true)
        defer { takingOver(false) }
        // A process that takes over goes on from the copy in Redis (its cursor and marks), not from scratch; a copy
        // there that does not vouch for itself is read whole again, once.
        if loaded == nil && !owed.contains(.wholeRead) {
            setTrouble(nil)
            try? await load(judgingAge: false)
            if trouble != nil { owe(.wholeRead) }
        }
        let clock = copy.client.network.serverClock
        let started = clock.localTime()
        // A copy this process keeps is as good as what it serves: it is put in Redis as it is, unless the copy there
        // was found unsound, which is read whole again.
        let readWhole = owed.contains(.wholeRead)
        let (pages, store, token) = (self.pages, store, token)
        // The first page of a first whole read is kept in Redis for readers waiting to draw a first screen.
        let unpublished = Locked(loaded == nil)
        let report = try await copy.pollForTeam(whole: readWhole) { page in
            pages.withLock { $0 }?(page)
            if unpublished.withLock({ first in
                defer { first = false }; return first
            }) {
                store.publishFirstPage(token: token, records: page.map(TeamCopyStore.value))
            }
        }
        let stamp = clock.at(local: started) ?? clock.now() ?? 0
        let refreshed = clock.now().map { "\($0)" } ?? ""
        var header = await copy.teamHeader() + copy.doneHeader(refreshed: refreshed)
        header += [
            ("layout", TeamCopyStore.Keys.hash(settings.layout)), ("poller", settings.poller),
            ("kept", settings.everyField ? "all" : "some"), ("refreshed", refreshed),
        ]
        let version: Int
        do {
            if readWhole || memory.republish || !report.whole.isEmpty || loaded == nil {
                // A whole copy: read whole from Airtable, or this process's own put in again because Redis refused a
                // refresh or went back in time (its memory holds every change, so Airtable is not asked again).
                let generation = Digest.randomHex(bytes: 8)
                memory.sentGeneration = generation
                version = try store.rebuild(
                    token: token, generation: generation, stamp: stamp, tables: await copy.storedTables(),
                    header: header)
                memory.sentGeneration = nil
                let newsID = (try? store.head().fields["news"]) ?? nil
                loaded = Loaded(generation: generation, version: version, newsID: newsID ?? "0")
                // A new generation counts from the version Redis holds now (lower, after Redis went back in time).
                memory.highestVersion = version
                paid(.wholeRead)
                memory.republish = false
                _ = try? store.connection.call([["DEL", store.keys.failed, store.keys.first]])
            } else if let current = loaded {
                version = try store.refresh(
                    token: token, stamp: stamp, generation: current.generation,
                    version: max(current.version, memory.highestVersion), tables: await copy.teamTables,
                    header: header, changes: report.changes)
                ownVersions.insert(version)
            } else {
                return
            }
        } catch let failure as RedisFailure {
            // Not applied in Redis (refused: out of memory, busy, loading; or its answer lost): this process's copy
            // moved on without it, so nothing of it is taken as applied, and the next round puts the whole copy in.
            memory.republish = true
            throw failure
        }
        memory.highestVersion = max(memory.highestVersion, version)
        TeamWriter.register(store.keys, names: settings.names, on: store.connection)
        setTrouble(nil)
        if !report.changes.isEmpty || !report.whole.isEmpty { onChange.withLock { $0 }?() }
    }
}
