#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerSystem

extension Session {
    /// Where this base's webhook id is kept: the team's Redis when `"redis"` is set, and the cache directory.
    package static func webhookMemory(_ configuration: Configuration, in surroundings: SessionSurroundings)
        -> WebhookRecord
    {
        let owner = configuration.budgetOwner
        return WebhookRecord(
            cache: surroundings.cache,
            name: "webhook-" + String(StableHash.of(owner.endpoint.absoluteString + " " + owner.baseID), radix: 16),
            engine: surroundings.coordination, owner: owner)
    }

    /// A reader through the face's copy of the tables, when the face keeps one and the layout is confirmed.
    func copyReader() -> CopyReader? {
        guard let copies = surroundings.copies, inFlight == nil else { return nil }
        let key = [
            configuration.access.endpoint.absoluteString, configuration.access.baseID, configuration.table,
            layout.tasks?.route ?? "",
        ].joined(separator: "\u{0}")
        // Records are decoded by the fields' names: a copy made with other names is made again.
        let copy = copies.copy(for: key, layout: layoutNames) {
            // With the team's copy, every face keeps every field: one copy a base, table and layout serves boards and
            // assistants alike (one poller, one whole read), and each face reads what it needs from it.
            let copy = makeCopy(keeping: takesPartInTeamCopy ? BaseCopies() : copies)
            // The team's copy: this copy fed from Redis, or kept there by this process while it holds the lease.
            let team = teamCopy(keeping: copy)
            team?.onChange.withLock { $0 = { copies.teamChanged.withLock { $0 }?() } }
            copy.team.withLock { $0 = team }
            return copy
        }
        return CopyReader(copy: copy, airtable: client)
    }

    /// A copy of the tables that keeps the fields `copies` keeps (only those the schema says exist; all without it).
    func makeCopy(keeping copies: BaseCopies) -> BaseCopy {
        let tasks = layout.tasks
        var ids: [BaseCopy.Table: String] = [:]
        ids[.projects] = layout.table?.id
        ids[.tasks] = tasks?.table?.id
        ids[.clients] = layout.clientTableID
        let projectFields = layout.table == nil ? nil : copies.projectWords?.compactMap { layout.fields[$0] }
        var taskFields: [String]?
        if let tasks, tasks.table != nil, let words = copies.taskWords {
            taskFields = words.compactMap { tasks.fields[$0] }
        }
        // A copy outlives the call that made it and serves whoever asks next: it speaks as the face, not the person.
        let own = surroundings.copyToken
        return BaseCopy(
            client: own.map { client.speaking(as: $0) } ?? client,
            tasks: tasks?.client, tableIDs: ids,
            memory: Self.webhookMemory(configuration, in: surroundings), clients: layout.clientTableID,
            projectFields: projectFields, taskFields: taskFields)
    }
}
