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
    /// Opens a session on the base `configuration` names, with the table's layout (the remembered schema, or the
    /// schema read now) and the reader chosen once: the face's copy when it keeps one, else Airtable.
    ///
    /// With `readingBeside`, work that only reads and confirms before writing anything out does not wait for a schema
    /// that is not remembered: the layout is the one the secrets file assumes, and the schema read goes out beside the
    /// work's first request (`inFlight`). A face that keeps a copy reads the schema first (the copy needs the layout
    /// confirmed) unless `evenWithCopy`: the board's cold first screen, which is read without the copy (but from the
    /// team's copy when it keeps one: that costs no request once the schema is known).
    package static func open(
        _ configuration: Configuration, client: ProjectAPIClient, in surroundings: SessionSurroundings,
        attempt: SchemaAttempt, readingBeside: Bool = false, evenWithCopy: Bool = false
    ) async throws -> Session {
        var session = try await reading(
            configuration, client: client, in: surroundings, attempt: attempt, readingBeside: readingBeside,
            evenWithCopy: evenWithCopy)
        // Every session's writes reach the team's copies, however its layout is known.
        session.writeThroughTeam()
        return session
    }

    /// The session with its reader chosen, before its writes are made to reach the team's copies.
    private static func reading(
        _ configuration: Configuration, client: ProjectAPIClient, in surroundings: SessionSurroundings,
        attempt: SchemaAttempt, readingBeside: Bool, evenWithCopy: Bool
    ) async throws -> Session {
        let knowledge = BaseKnowledge(
            client: client, cache: surroundings.cache, now: surroundings.now,
            team: teamSchema(configuration, surroundings))
        if readingBeside && attempt.mayReadBeside && !knowledge.remembersFreshSchema
            && (surroundings.copies == nil || evenWithCopy && !configuration.teamCopy) && surroundings.maxAge == nil
        {
            let assumed = client.access.fieldSettings.assumed
            let inFlight = SchemaInFlight(assumed: assumed) { try await knowledge.layout() }
            attempt.began(inFlight)
            return Session(
                configuration: configuration, client: client.using(assumed), reader: client.using(assumed),
                knowledge: knowledge,
                layout: TableLayout(
                    fields: assumed, table: nil, schema: nil,
                    tasks: try? TaskLayout.resolve(client.access.tasks, projects: nil, schema: nil)),
                inFlight: inFlight, surroundings: surroundings, attempt: attempt)
        }
        let layout = try await knowledge.layout()
        var session = Session(
            configuration: configuration, client: client.using(layout.fields), reader: client.using(layout.fields),
            knowledge: knowledge, layout: layout, surroundings: surroundings, attempt: attempt)
        session.chooseCopy()
        await session.readTeamSnapshot()
        return session
    }

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

    /// Reads through the face's copy of the tables, when the face keeps one and the layout is confirmed.
    private mutating func chooseCopy() {
        guard let copies = surroundings.copies, inFlight == nil else { return }
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
        self.reader = CopyReader(copy: copy, airtable: client)
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
