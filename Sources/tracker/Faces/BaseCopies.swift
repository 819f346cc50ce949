import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// The copies of the tables a face that stays keeps (`board`, `mcp`), one for each base and layout, shared by every
/// command it runs; one-shot commands have none and read Airtable.
final class BaseCopies: Sendable {
    /// The fields kept of each table, by tracker's words; nil keeps every field (an assistant may ask for any).
    let projectWords: [FieldMap.Word]?
    let taskWords: [TaskWord]?

    init(projectWords: [FieldMap.Word]? = nil, taskWords: [TaskWord]? = nil) {
        self.projectWords = projectWords
        self.taskWords = taskWords
    }

    /// What the board shows and filters by: 50,000 projects and 100,000 tasks fit in far less memory without the rest.
    static var board: BaseCopies {
        BaseCopies(
            projectWords: [.name, .due, .complete, .lead, .team, .client, .category, .notes],
            taskWords: [.project, .complete, .assignee])
    }

    private let copies = Locked<[String: (layout: [String], copy: BaseCopy)]>([:])

    /// A new turn of the face (a tool call, a board's refresh): each copy's next read brings it up to date.
    func beginTurn(observing: (@Sendable (Int) -> Void)? = nil) {
        observer.withLock { $0 = observing }
        for kept in copies.withLock({ Array($0.values) }) { kept.copy.beginTurn(observing: observing) }
    }

    /// Who hears a whole read's progress this turn, for a copy made during it.
    private let observer = Locked<(@Sendable (Int) -> Void)?>(nil)

    /// The copy kept under `key`, made by `make` the first time and again when the fields' names (`layout`) changed.
    func copy(for key: String, layout: [String], make: () -> BaseCopy) -> BaseCopy {
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
struct WebhookRecord: WebhookMemory {
    let cache: CacheDirectory?
    let name: String
    let engine: any Coordination
    let owner: BudgetOwner

    /// A hook lives 7 days unless refreshed; what is remembered of it no longer.
    static let lifetime = 7 * 86400

    func recall() -> String? {
        if let id = engine.sharedValue("webhook", for: owner) { return id }
        return cache?.read(name).map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    func remember(_ id: String?) {
        engine.share(id, as: "webhook", for: owner, forSeconds: Self.lifetime)
        if let id { _ = cache?.write(Array(id.utf8), to: name) } else { _ = cache?.remove(name) }
    }
}

extension Runner {
    /// Where this base's webhook id is kept: the team's Redis when `"redis"` is set, and the cache directory.
    func webhookMemory(_ configuration: Configuration) -> WebhookRecord {
        let owner = configuration.budgetOwner
        return WebhookRecord(
            cache: context.cacheDirectory,
            name: "webhook-" + String(StableHash.of(owner.endpoint.absoluteString + " " + owner.baseID), radix: 16),
            engine: coordination(configuration), owner: owner)
    }

    /// `base` with the face's copy of its tables attached, when the face keeps one and the layout is confirmed.
    func attachingCopy(_ base: Base) -> Base {
        guard let copies = context.copies, base.inFlight == nil else { return base }
        let configuration = base.configuration
        let layout = base.layout
        let tasks = layout.tasks
        let key = [
            configuration.access.endpoint.absoluteString, configuration.access.baseID, configuration.table,
            tasks?.route ?? "",
        ].joined(separator: "\u{0}")
        // Records are decoded by the fields' names: a copy made with other names is made again.
        let names =
            FieldMap.Word.allCases.map { layout.fields[$0] ?? "" }
            + TaskWord.allCases.map { tasks?.fields[$0] ?? "" }
            + [String(describing: layout.fields.completion), String(describing: tasks?.fields.completion)]
        let client = base.client
        let memory = webhookMemory(configuration)
        let copy = copies.copy(for: key, layout: names) {
            var ids: [BaseCopy.Table: String] = [:]
            ids[.projects] = layout.table?.id
            ids[.tasks] = tasks?.table?.id
            ids[.clients] = layout.clientTableID
            // Only fields the schema says exist may be named; without it every field is kept.
            let projectFields = layout.table == nil ? nil : copies.projectWords?.compactMap { layout.fields[$0] }
            var taskFields: [String]?
            if let tasks, tasks.table != nil, let words = copies.taskWords {
                taskFields = words.compactMap { tasks.fields[$0] }
            }
            return BaseCopy(
                client: client, tasks: tasks?.client, tableIDs: ids, memory: memory, clients: layout.clientTableID,
                projectFields: projectFields, taskFields: taskFields)
        }
        var attached = base
        attached.client.copy = copy
        return attached
    }
}
