import TrackerAPI
import TrackerNetwork
import TrackerModel

extension Session {
    /// This process's part in the team's copy of the tables kept by `layout` (the fields' names and the fields kept),
    /// when `"teamCopy"` is on and the team's Redis is the engine; nil otherwise (the face keeps its copy alone).
    func teamCopy(layout: String, table: String) -> TeamCopy? {
        guard configuration.teamCopy, let address = configuration.redis,
            surroundings.coordination is TeamCoordination
        else { return nil }
        let keys = TeamCopyStore.Keys(owner: configuration.budgetOwner, table: table, layout: layout)
        let store = TeamCopyStore(keys: keys, connection: RedisConnection(address: address, answerTimeout: 5))
        let settings = TeamCopy.Settings(
            every: configuration.teamCopyEvery, layout: layout, poller: thisProcessName())
        return TeamCopy(store: store, settings: settings, say: surroundings.warn)
    }
}
