import TrackerModel

/// Where a session's listings are answered, chosen once when it opens: Airtable itself (`ProjectAPIClient`), or a copy
/// kept of the tables (`CopyReader`: a face that stays keeps one). A read route asks its reader, never which one it is.
/// Only reads: what a write changed is told to a `WriteObserver`, and the copy's upkeep is the face's (`CopyUpkeep`).
public protocol RecordReader: Sendable {
    /// Streams the projects `query` picks, a page at a time; no project is passed twice.
    func listProjects(_ query: ListQuery, onPage: ([Project]) async throws -> Void) async throws
    /// The projects with these ids, in their order, each once; `fields`, when given, the only fields read.
    func projects(ids: [String], fields: [String]?) async -> Result<[Project], AppError>
    /// Streams the tasks `query` picks, a page at a time, as `listProjects` streams projects.
    func listTasks(in table: TaskTable, _ query: ListQuery, onPage: ([ProjectTask]) async throws -> Void) async throws
    /// The tasks with these ids (that `also` picks, when given), in their order, each once.
    func tasks(in table: TaskTable, ids: [String], also: Selection<ProjectTask>?) async -> Result<
        [ProjectTask], AppError
    >
    /// Every record of another table of the base (the Clients) that `query` picks, its cells as Airtable sent them.
    func rawRecords(in table: String, query: ListQuery) async -> Result<[RawRecord], AppError>
    /// The projects whose completion changed at `since` or later, for a predicate that needs them (no record says when
    /// it was completed; `formula` finds them on Airtable); nil when the reader applies the listing's formula itself.
    func completedLately(since: String, formula: String?) async throws -> Set<String>?
    /// The same source, its fields named as `map` names them (the schema was read again).
    func naming(_ map: FieldMap) -> any RecordReader
}

extension RecordReader {
    /// The projects with these ids, every field.
    public func projects(ids: [String]) async -> Result<[Project], AppError> { await projects(ids: ids, fields: nil) }

    /// The tasks with these ids.
    public func tasks(in table: TaskTable, ids: [String]) async -> Result<[ProjectTask], AppError> {
        await tasks(in: table, ids: ids, also: nil)
    }

    /// Every record of another table of the base.
    public func rawRecords(in table: String) async -> Result<[RawRecord], AppError> {
        await rawRecords(in: table, query: ListQuery())
    }

    /// Every record a listing passes on, gathered: `list` is `listProjects` or `listTasks` with its query.
    public func collect<Record: Sendable>(
        _ list: (([Record]) async throws -> Void) async throws -> Void
    ) async -> Result<[Record], AppError> {
        await gathering(list)
    }
}

/// What a write of this process was answered with, by table: what a reader keeps shows it at once.
public enum WrittenRecords: Sendable {
    case projects([Project])
    case tasks([ProjectTask])
    /// Records deleted, and the table they were of.
    case deleted([String], from: BaseCopy.Table)
}

/// Told what this process wrote (the session tells it after each answer): the face's copy, the team's copies.
public protocol WriteObserver: Sendable {
    func heard(_ written: WrittenRecords) async
}

/// Nothing kept, so nothing to tell: a session that reads Airtable itself, with no team's copy.
public struct NoWriteObserver: WriteObserver {
    public init() {}
    public func heard(_ written: WrittenRecords) async {}
}

/// The upkeep of the tables a face keeps, which the face does and operations never: a turn begun, how deletions are
/// seen, whose copy it is.
public protocol CopyUpkeep: Sendable {
    /// A new turn of the face (a tool call, a board's refresh): what is kept is brought up to date by the next read.
    func beginTurn()
    /// How records deleted on Airtable leave what is kept.
    func deletionWatch() async -> BaseCopy.DeletionWatch
    /// Where what is kept comes from when it is the team's copy in Redis (who keeps it, whether it is served); nil
    /// when the face keeps its own.
    func sharedState() async -> String?
}

/// Every record a listing passes on, gathered; a failure as `AppError`.
func gathering<Record: Sendable>(
    _ list: (([Record]) async throws -> Void) async throws -> Void
) async -> Result<[Record], AppError> {
    var found: [Record] = []
    do {
        try await list { found += $0 }
    } catch {
        return .failure(error as? AppError ?? .badResponse("\(error)"))
    }
    return .success(found)
}

/// Airtable as a reader: every listing is its answer, and nothing is kept between them.
extension ProjectAPIClient: RecordReader {
    public func completedLately(since: String, formula: String?) async throws -> Set<String>? { nil }
    public func naming(_ map: FieldMap) -> any RecordReader { using(map) }
}
