import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

/// The copies of the tables a face that stays keeps (`board`, `mcp`), one for each base and layout, shared by every
/// command it runs; one-shot commands have none and read Airtable. Each is a `BaseCopy` (the base's tables, each a
/// `TableCopy`, kept up to date with what changed).
package final class BaseCopies: Sendable {
    /// The fields kept of each table, by tracker's words; nil keeps every field (an assistant may ask for any).
    package let projectWords: [FieldMap.Word]?
    package let taskWords: [TaskWord]?

    package init(projectWords: [FieldMap.Word]? = nil, taskWords: [TaskWord]? = nil) {
        self.projectWords = projectWords
        self.taskWords = taskWords
    }

    /// What the board shows and filters by: 50,000 projects and 100,000 tasks fit in far less memory without the rest.
    package static var board: BaseCopies { BaseCopies(projectWords: boardProjectWords, taskWords: boardTaskWords) }

    /// The projects' fields the board reads: what its copy keeps, so its listing is one the copy answers.
    package static let boardProjectWords: [FieldMap.Word] = [
        .name, .due, .complete, .lead, .team, .client, .category, .notes,
    ]
    /// The tasks' fields the board counts by.
    package static let boardTaskWords: [TaskWord] = [.project, .complete, .assignee]

    private let copies = Locked<[String: (layout: [String], copy: BaseCopy)]>([:])

    /// A new turn of the face (a tool call, a board's refresh): each copy's next read brings it up to date. Told by
    /// pings (`serve` with its doorbell), a turn freshens only after a ping, or an hour after the last refresh (a ping
    /// may be lost).
    package func beginTurn(observing: (@Sendable (Int) -> Void)? = nil) {
        observer.withLock { $0 = observing }
        let now = MonotonicClock.now()
        let freshening = pings.withLock { pings -> Bool in
            guard pings.told, !pings.since, now - pings.freshened < 3600 else {
                (pings.since, pings.freshened) = (false, now)
                return true
            }
            return false
        }
        for kept in copies.withLock({ Array($0.values) }) {
            kept.copy.beginTurn(observing: observing, freshening: freshening)
        }
    }

    /// Whether the face is told by pings when the base changed (`told`), and whether one came since the last turn
    /// that freshened (`since`, at `freshened`).
    private let pings = Locked((told: false, since: false, freshened: 0.0))

    /// From now on turns freshen on pings (and hourly): the face keeps a webhook that pings it.
    package func turnOnPings(_ on: Bool) { pings.withLock { $0.told = on } }

    /// A ping came: the next turn brings every copy up to date.
    package func pinged() { pings.withLock { $0.since = true } }

    /// Someone looks at the face (a key, focus, an assistant's call): each team's copy it follows is told, and one left
    /// to age while nobody looked is brought up to date first.
    package func looked() async {
        for kept in copies.withLock({ Array($0.values) }) { await kept.copy.team.withLock { $0 }?.looked() }
    }

    /// Why a team's copy this face follows cannot vouch for itself now (Redis out of reach, a copy in doubt), each;
    /// empty when every one can (or none is followed).
    package func doubts() async -> [String] {
        var doubts: [String] = []
        for kept in copies.withLock({ Array($0.values) }) {
            guard let team = kept.copy.team.withLock({ $0 }) else { continue }
            if let doubt = await team.doubt { doubts.append(doubt) }
        }
        return doubts
    }

    /// The face's end: each copy stops taking part in the team's copy, its lease let go for the next process at once.
    package func finish() async {
        for kept in copies.withLock({ Array($0.values) }) { await kept.copy.team.withLock { $0 }?.stop() }
    }

    /// The face's end on a signal, from the thread that handles it: each lease this process holds let go at once.
    package func finishAtExit() {
        for kept in copies.withLock({ Array($0.values) }) { kept.copy.team.withLock { $0 }?.releaseAtExit() }
    }

    /// Told whenever a refresh another process applied to the team's copy changed a copy (the board redraws).
    package func whenTeamChanges(_ tell: @escaping @Sendable () -> Void) {
        teamChanged.withLock { $0 = tell }
    }

    /// Who is told of the team's refreshes.
    package let teamChanged = Locked<(@Sendable () -> Void)?>(nil)

    /// Who hears a whole read's progress this turn, for a copy made during it.
    private let observer = Locked<(@Sendable (Int) -> Void)?>(nil)

    /// The copy kept under `key`, made by `make` the first time and again when the fields' names (`layout`) changed.
    package func copy(for key: String, layout: [String], make: () -> BaseCopy) -> BaseCopy {
        copies.withLock { copies in
            if let kept = copies[key], kept.layout == layout { return kept.copy }
            let copy = make()
            copy.beginTurn(observing: observer.withLock { $0 })
            copies[key] = (layout, copy)
            return copy
        }
    }
}

/// The base's webhook id, kept where every process that shares the base's budget finds it: shared through the engine
/// (the team's Redis when `"redis"` is set) and in the cache directory, for when the engine keeps no such values or
/// cannot be reached.
package struct WebhookRecord: WebhookMemory {
    package let cache: CacheDirectory?
    package let name: String
    package let engine: any Coordination
    package let owner: BudgetOwner

    /// A hook lives 7 days unless refreshed; what is remembered of it no longer.
    package static let lifetime = 7 * 86400

    package func recall() -> String? {
        if let id = engine.sharedValue("webhook", for: owner) { return id }
        return cache?.read(name).map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    package func remember(_ id: String?) {
        engine.share(id, as: "webhook", for: owner, forSeconds: Self.lifetime)
        if let id { _ = cache?.write(Array(id.utf8), to: name) } else { _ = cache?.remove(name) }
    }
}
