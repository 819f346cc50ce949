import TrackerAPI
import TrackerTeam
import TrackerNetwork
import TrackerModel

extension Session {
    /// The fields' names records are decoded by, and the tables' ids: a copy made with other names is made again.
    var layoutNames: [String] { Self.names(of: layout, configuration) }

    /// The names `layout` reads records by, with the tables' ids.
    static func names(of layout: TableLayout, _ configuration: Configuration) -> [String] {
        let tasks = layout.tasks
        return FieldMap.Word.allCases.map { layout.fields[$0] ?? "" }
            + TaskWord.allCases.map { tasks?.fields[$0] ?? "" }
            + [described(layout.fields.completion), described(tasks?.fields.completion)]
            + [layout.table?.id ?? configuration.table, tasks?.table?.id ?? "", layout.clientTableID ?? ""]
    }

    /// `String(describing:)` of how completion is kept, as the copy's keys have always held it, made without
    /// reflection: `Mirror` cost a board following the copy more CPU at its start than decoding its first page.
    static func described(_ completion: CompletionField?) -> String {
        guard let completion else { return "nil" }
        let inner =
            switch completion {
            case .checkbox(let field): "checkbox(field: \(field.debugDescription))"
            case .select(let field, let done, let open):
                "select(field: \(field.debugDescription), done: \(done.debugDescription), open: "
                    + (open.map { "Optional(\($0.debugDescription))" } ?? "nil") + ")"
            }
        return "Optional(TrackerModel.CompletionField.\(inner))"
    }

    /// Whether this session takes part in the team's copy: `"teamCopy"` on, with the team's Redis as the engine.
    var takesPartInTeamCopy: Bool { teamAddress != nil }

    /// The team's Redis, when this session takes part in the team's copy.
    private var teamAddress: RedisAddress? { Self.teamAddress(configuration, surroundings) }

    private static func teamAddress(_ configuration: Configuration, _ surroundings: SessionSurroundings)
        -> RedisAddress?
    {
        guard surroundings.coordination is TeamCoordination else { return nil }
        return configuration.teamCopyRedis
    }

    /// The process's one connection to the Redis at `address` (the engine's, which the budget, the locks and the
    /// counts use): every session's shared schema, copy store and writes' answers go through it, not a connection of
    /// their own. A copy kept in another Redis than the engine's gets its own.
    static func connection(to address: RedisAddress, _ surroundings: SessionSurroundings) -> RedisConnection {
        if let team = surroundings.coordination as? TeamCoordination, team.connection.address == address {
            return team.connection
        }
        return RedisConnection(address: address)
    }

    /// The schema the team shares through Redis, when a session opened with these takes part in the team's copy.
    static func teamSchema(_ configuration: Configuration, _ surroundings: SessionSurroundings) -> TeamSchema? {
        guard let address = teamAddress(configuration, surroundings) else { return nil }
        return TeamSchema(owner: configuration.budgetOwner, connection: connection(to: address, surroundings))
    }

    /// This process's part in the team's copy of the tables `copy` keeps (the fields kept are part of its keys).
    func teamCopy(keeping copy: BaseCopy) -> TeamCopy? {
        guard let address = teamAddress else { return nil }
        let names = layoutNames.joined(separator: "\u{0}")
        let everyField = copy.projectFields == nil
        let layout = names + "\u{0}" + "\(copy.projectFields ?? ["*"]) \(copy.taskFields ?? ["*"])"
        let keys = TeamCopyStore.Keys(
            owner: configuration.budgetOwner, table: projectsTable, layout: layout)
        let store = TeamCopyStore(keys: keys, connection: Self.connection(to: address, surroundings))
        var settings = TeamCopy.Settings(
            every: configuration.teamCopyEvery, layout: layout, names: names, poller: thisProcessName())
        settings.everyField = everyField
        settings.whenPolling = surroundings.prepareNetwork
        (settings.monthlyCalls, settings.backgroundShare) = (configuration.plan?.calls, configuration.backgroundShare)
        return TeamCopy(store: store, settings: settings, say: surroundings.warn)
    }

    private var projectsTable: String { layout.table?.id ?? configuration.table }

    /// A one-shot read given `--max-age` (or `"maxAge"`): answered from the team's copy (one for every face) when it
    /// was refreshed within that long and vouches for itself; else from Airtable, as without it.
    func teamSnapshotReader() async -> CopyReader? {
        guard let maxAge = surroundings.maxAge, surroundings.copies == nil, inFlight == nil else { return nil }
        let copy = makeCopy(keeping: BaseCopies())
        guard let team = teamCopy(keeping: copy) else { return nil }
        copy.team.withLock { $0 = team }
        guard await team.snapshot(into: copy, maxAge: maxAge) else { return nil }
        return CopyReader(copy: copy, airtable: client)
    }

    /// The write observer that also puts this process's writes' answers into the team's copies, when it takes part.
    func teamWriteThrough() -> (any WriteObserver)? {
        guard let address = teamAddress else { return nil }
        // Read beside the schema, the layout is known once the schema confirms it, before anything is written.
        let (configuration, inFlight, fixed) = (configuration, inFlight, layoutNames.joined(separator: "\u{0}"))
        let names: @Sendable () async -> String? = {
            guard let inFlight else { return fixed }
            return (try? await inFlight.confirmed()).map {
                Self.names(of: $0, configuration).joined(separator: "\u{0}")
            }
        }
        let writer = TeamWriter(
            connection: Self.connection(to: address, surroundings), owner: configuration.budgetOwner, names: names)
        let clock = client.serverClock
        return TeamWriteThrough(base: observer, writer: writer, serverNow: { clock.now() })
    }
}
