#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// A request as tracker sends it: what `--dry-run` prints is exactly what would go.
public struct PlannedRequest: Equatable, Sendable {
    var method: String
    /// The path and query, percent-encoded as on the wire.
    var path: String
    public var body: JSONValue?
    /// The host, when it is not the API's (uploads go to Airtable's content host).
    var host: String? = nil

    /// A request as it would go out: `path` percent-encoded as on the wire.
    public init(method: String, path: String, body: JSONValue?, host: String? = nil) {
        self.method = method
        self.path = path
        self.body = body
        self.host = host
    }

    /// `METHOD path` and the JSON body on the next line.
    public var text: String { "\(method) \(host ?? "")\(path)\n" + (body.map { $0.serialized() + "\n" } ?? "") }
}

/// One project's id and the cells to change.
public struct ProjectChange: Equatable, Sendable {
    public var id: String
    public var write: ProjectWrite

    public init(id: String, write: ProjectWrite) {
        self.id = id
        self.write = write
    }
}

extension ProjectAPIClient {
    /// Airtable takes at most this many records in one create, update or delete.
    static let batchSize = 10

    // MARK: - Planning

    /// `POST` of one project; no `typecast`, so Airtable cannot create options or linked records as a side effect.
    public func plannedCreate(_ write: ProjectWrite) -> PlannedRequest {
        PlannedRequest(method: "POST", path: tablePath, body: .object([("fields", write.fields(fields))]))
    }

    /// `PATCH` requests of at most ten projects each.
    public func plannedUpdates(_ changes: [ProjectChange]) -> [PlannedRequest] {
        Self.batches(changes).map { batch in
            let records = batch.map { JSONValue.object([("id", .string($0.id)), ("fields", $0.write.fields(fields))]) }
            return PlannedRequest(method: "PATCH", path: tablePath, body: .object([("records", .array(records))]))
        }
    }

    /// `PATCH` upserts of at most ten new projects each, merged on the `key` fields: a project whose key exists is
    /// updated instead of created, so sending an upsert again can never add a second project.
    func plannedUpserts(_ writes: [ProjectWrite], mergingOn key: [FieldMap.Word]) -> [PlannedRequest] {
        Self.batches(writes).map { batch in
            let records = batch.map { JSONValue.object([("fields", $0.fields(fields))]) }
            let upsert = JSONValue.object([
                ("fieldsToMergeOn", .array(key.compactMap { fields[$0] }.map(JSONValue.string)))
            ])
            return PlannedRequest(
                method: "PATCH", path: tablePath,
                body: .object([("performUpsert", upsert), ("records", .array(records))]))
        }
    }

    /// `DELETE` requests of at most ten projects each.
    public func plannedDeletes(_ ids: [String]) -> [PlannedRequest] {
        Self.batches(ids).map { batch in
            PlannedRequest(
                method: "DELETE", path: tablePath + "?" + Self.encode(batch.map { ("records[]", $0) }), body: nil)
        }
    }

    static func batches<T>(_ items: [T]) -> [[T]] { items.chunked(into: batchSize) }

    private var tablePath: String { path(ofTable: access.table) }

    /// The percent-encoded path of a table's records route.
    func path(ofTable table: String) -> String {
        let url = url(ofTable: table)
        return URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }

    func send(
        _ planned: PlannedRequest, kind: RequestKind, beforeEachAttempt: (@Sendable () throws(AppError) -> Void)? = nil
    ) async -> Result<Data, AppError> {
        let url = URL(string: access.endpoint.absoluteString + planned.path)!
        return await send(
            request(url, method: planned.method, body: planned.body), kind: kind, beforeEachAttempt: beforeEachAttempt)
    }

    // MARK: - Create

    /// Creates one project and returns it as Airtable stored it; never creates it twice.
    ///
    /// The create is sent again only when the failure proves it was not applied (refused connection, DNS, 429: the
    /// network helper's retries). After a timeout, a reset, a 5xx or an unreadable answer Airtable may have applied it,
    /// even seconds later; tracker then looks for it until it appears or the retry budget is spent, and never sends it
    /// again.
    @_spi(Writing) public func createProject(_ write: ProjectWrite, name: String, due: CalendarDate?) async -> Result<
        Project, AppError
    > {
        let dueText = due.map { ", due \($0)," } ?? ""
        return await createOnce(
            plannedCreate(write), describing: "\"\(name)\"\(dueText)", name: name, noun: "project",
            decode: { (data) throws(AppError) in try RecordDecoding.project(data, map: fields) },
            find: { since in
                await projects(named: name).map { matches in
                    matches.last { $0.due == due && $0.createdTime >= since }
                }
            })
    }

    /// Sends a create of one record of any table and returns the record as Airtable stored it; never creates it twice.
    ///
    /// The create is sent again only when the failure proves it was not applied (refused connection, DNS, 429: the
    /// network helper's retries). After a timeout, a reset, a 5xx or an unreadable answer Airtable may have applied it,
    /// even seconds later; `find` then looks for it (made at or after the instant it is given) until it appears or the
    /// lookup's time is spent, and the create is never sent again.
    func createOnce<Record: Sendable>(
        _ planned: PlannedRequest, describing what: String, name: String, noun: String,
        decode: (Data) throws(AppError) -> Record, find: (String) async -> Result<Record?, AppError>
    ) async -> Result<Record, AppError> {
        // Allow for the machine's clock running ahead of Airtable's.
        let since = ISOInstant.text(now().addingTimeInterval(-120))
        let started = network.now()
        // The lock that keeps it exactly once is confirmed right before each attempt, after its slot and any 429.
        var confirm: (@Sendable () throws(AppError) -> Void)?
        if let lease { confirm = { () throws(AppError) in try lease.confirmHeld() } }
        switch await send(planned, kind: .notIdempotent, beforeEachAttempt: confirm) {
        case .success(let data):
            if let record = try? decode(data) { return .success(record) }
        // A 2xx means it was applied, whatever the body says.
        case .failure(.requestOutcomeUnknown):
            break
        case .failure(let error):
            return .failure(error)
        }
        return await lookForLost(
            "the create", checking: "whether \(what) was made", startedAt: started, find: { await find(since) },
            unknown: { .createOutcomeUnknown(name: name, waitedSeconds: $0, noun: noun) })
    }

    /// What follows a write whose answer was lost: it is never sent again; `find` looks for what it would have made
    /// (with growing pauses, for up to `lostCreateLookupSeconds`), and when nothing appears the outcome is unknown,
    /// `unknown` given the seconds spent looking.
    func lookForLost<Record: Sendable>(
        _ write: String, checking: String, startedAt started: Double,
        find: () async -> Result<Record?, AppError>, unknown: (Int) -> AppError
    ) async -> Result<Record, AppError> {
        network.notice(
            "Airtable's answer to \(write) was lost; checking \(checking) (up to \(Int(Self.lostCreateLookupSeconds)) s)…"
        )
        switch await network.poll(startedAt: started, within: Self.lostCreateLookupSeconds, find) {
        case .success(let record?): return .success(record)
        case .failure(.interrupted): return .failure(.interrupted)
        default: return .failure(unknown(Int((network.now() - started).rounded())))
        }
    }

    /// How long tracker looks for a create whose answer was lost (at most the retry budget): Airtable applies a
    /// write within seconds or not at all, and a person at a terminal should not wait two minutes to hear so.
    static let lostCreateLookupSeconds = 20.0

    // MARK: - Update

    /// Applies `changes` ten projects a request, passing each batch's projects as Airtable returns them.
    ///
    /// A PATCH sets cells to given values, so sending it twice changes nothing more: its answer is retried like a
    /// read's.
    @_spi(Writing) public func updateProjects(_ changes: [ProjectChange], onUpdated: ([Project]) async throws -> Void)
        async throws
    {
        try await sendIdempotent(plannedUpdates(changes), onWritten: onUpdated)
    }

    /// Creates projects ten a request as upserts on `key`, passing each batch's projects as Airtable returns them.
    ///
    /// An upsert whose answer was lost is sent again like a read: the projects it may have created are then matched
    /// by their key and updated with the same values, never created twice.
    @_spi(Writing) public func upsertProjects(
        _ writes: [ProjectWrite], mergingOn key: [FieldMap.Word], onWritten: ([Project]) async throws -> Void
    ) async throws {
        try await sendIdempotent(plannedUpserts(writes, mergingOn: key), onWritten: onWritten)
    }

    private func sendIdempotent(_ requests: [PlannedRequest], onWritten: ([Project]) async throws -> Void) async throws
    {
        try await sendIdempotent(
            requests,
            decode: { (data) throws(AppError) in
                try RecordDecoding.writtenProjects(data, map: fields)
            }, onWritten: onWritten)
    }

    /// Sends writes that may be sent again (a PATCH sets cells to given values), passing each answer's records on.
    func sendIdempotent<Record: Sendable>(
        _ requests: [PlannedRequest], decode: (Data) throws(AppError) -> [Record],
        onWritten: ([Record]) async throws -> Void
    ) async throws {
        for planned in requests {
            let data = try await send(planned, kind: .idempotent).get()
            try await onWritten(try decode(data))
        }
    }

    // MARK: - Delete

    /// Deletes the projects ten a request, passing each batch's ids once they are gone.
    ///
    /// A delete whose answer was lost, or that Airtable refuses because a project is already gone, is settled by
    /// looking: a project no longer there counts as deleted, and only those still there are asked for again.
    ///
    /// With `unverified` (ids not yet found in this table), a first answer that an id is not a record of this table is
    /// thrown as it is, nothing having been deleted (Airtable applies a batch whole or not at all), for the caller to
    /// find the projects by name instead.
    @_spi(Writing) public func deleteProjects(
        _ ids: [String], unverified: Bool = false, onDeleted: ([String]) async throws -> Void
    )
        async throws
    {
        try await deleteOnce(
            ids, unverified: unverified, planned: { plannedDeletes($0)[0] }, existing: { await existing(ids: $0) },
            onDeleted: onDeleted)
    }

    /// Deletes records of any table ten a request with the rule `deleteProjects` describes: a lost answer or a 404 is
    /// settled by looking (`existing` says which ids are still there), and only those are asked for again.
    func deleteOnce(
        _ ids: [String], unverified: Bool = false, planned: ([String]) -> PlannedRequest,
        existing: ([String]) async -> Result<[String], AppError>, onDeleted: ([String]) async throws -> Void
    ) async throws {
        for batch in Self.batches(ids) {
            var remaining = batch
            for attempt in 1...3 where !remaining.isEmpty {
                switch await send(planned(remaining), kind: .notIdempotent) {
                case .success:
                    remaining = []
                case .failure(let error) where unverified && attempt == 1 && Self.isNotInThisTable(error):
                    throw error
                case .failure(.requestOutcomeUnknown), .failure(.http(404, _)):
                    remaining = try await existing(remaining).get()
                    if !remaining.isEmpty && attempt == 3 {
                        throw AppError.requestOutcomeUnknown(
                            "Airtable did not confirm deleting \(remaining.joined(separator: ", "))")
                    }
                case .failure(let error):
                    throw error
                }
            }
            try await onDeleted(batch)
        }
    }

    /// Whether Airtable's answer to a write by id says an id is not a record of this table. The batch routes are
    /// table-scoped (unlike GET of one record); the exact answer for an id of another table is not recorded, so any
    /// not-found and the two 422s that name a missing record all count.
    public static func isNotInThisTable(_ error: AppError) -> Bool {
        switch error {
        case .http(404, _): true
        case .http(422, let body): body.type == "ROW_DOES_NOT_EXIST" || body.type == "INVALID_RECORDS"
        default: false
        }
    }

    /// Which of `ids` are still projects of this table.
    func existing(ids: [String]) async -> Result<[String], AppError> {
        await projects(matching: Formula.any(ids.map(Formula.recordID(is:))))
            .map { found in
                let present = Set(found.map(\.id))
                return ids.filter(present.contains)
            }
    }
}
