#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
@_spi(Sending) import TrackerNetwork
import TrackerModel

/// Knows Airtable's routes and JSON for the projects table; sends everything through a `NetworkHelper`.
public struct ProjectAPIClient: Sendable {
    /// Airtable answers 414 to URLs this long or longer; such listings go through `POST …/listRecords`.
    static let maximumURLLength = 16_000

    public private(set) var access: BaseAccess
    package let network: NetworkHelper
    public let now: @Sendable () -> Date
    /// The `User-Agent` every request carries.
    let userAgent: String
    /// The base's names for tracker's fields: what the secrets file says until the schema has been read.
    public private(set) var fields: FieldMap
    /// The lock an exactly-once create holds (`--if-absent`): confirmed by `createOnce` right before each attempt.
    public var lease: (any HeldLock)?

    /// Where this client's requests are counted for the month.
    public var usage: any UsageLedger { network.usage }

    public init(
        access: BaseAccess, network: NetworkHelper, now: @escaping @Sendable () -> Date = Date.init,
        userAgent: String = "tracker"
    ) {
        self.access = access
        self.network = network
        self.now = now
        self.userAgent = userAgent
        self.fields = access.fieldSettings.assumed
    }

    /// The server's time, from its answers' `Date`.
    public var serverClock: ServerClock { network.serverClock }

    /// The same client, reading and writing the fields as `map` names them.
    /// The same client with another token: the same base, pacing and transport, another person.
    public func speaking(as token: String) -> ProjectAPIClient {
        var client = self
        client.access.token = token
        return client
    }

    public func using(_ map: FieldMap) -> ProjectAPIClient {
        var client = self
        client.fields = map
        return client
    }

    // MARK: - Reading

    /// Streams every project matching `query`, one page at a time, restarting if Airtable expires the page cursor.
    ///
    /// `onPage` sees each page once as it arrives; no project is passed twice, even across a restart. Failures are
    /// thrown as `AppError`; whatever `onPage` throws passes through unchanged.
    public func listProjects(_ query: ListQuery, onPage: ([Project]) async throws -> Void) async throws {
        try await streamPages({ await page(query, offset: $0) }, id: \.id, onPage: onPage)
    }

    /// Every project matching `formula`, all pages.
    public func projects(matching formula: String, limit: Int? = nil, fields: [String]? = nil) async -> Result<
        [Project], AppError
    > {
        let query = ListQuery(filterByFormula: formula, maxRecords: limit, fields: fields)
        return await collectPages({ await page(query, offset: $0) }, id: \.id)
    }

    /// Pages through a listing, `fetch` reading the page at a cursor, and restarts from the first page if Airtable
    /// expires the cursor; records already passed on are not passed again.
    func streamPages<Record: Sendable>(
        _ fetch: @Sendable (String?) async -> Result<RecordPage<Record>, AppError>, id: (Record) -> String,
        onPage: ([Record]) async throws -> Void
    ) async throws {
        // What was passed on, remembered only to skip it after a restart: 8 bytes a record, not a string each, so
        // memory stays flat however long the table (two ids sharing a 64-bit hash would need billions of records).
        var seen = Set<UInt64>()
        var offset: String?
        var restarts = 0
        var answer = await fetch(nil)
        while true {
            switch answer {
            case .success(let page):
                let fresh = restarts == 0 ? page.records : page.records.filter { !seen.contains(StableHash.of(id($0))) }
                if restarts > 0 || page.offset != nil {
                    for record in page.records { seen.insert(StableHash.of(id(record))) }
                }
                guard let next = page.offset else { return try await onPage(fresh) }
                // The next page downloads while this one is shown; if showing it stops the listing, leaving this scope
                // cancels the download.
                async let following = fetch(next)
                try await onPage(fresh)
                offset = next
                answer = await following
            case .failure(.http(422, let body))
            where body.type == "LIST_RECORDS_ITERATOR_NOT_AVAILABLE" && offset != nil:
                guard restarts < 3 else { throw AppError.http(status: 422, body) }
                restarts += 1
                offset = nil
                answer = await fetch(nil)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Every record of a listing, all pages.
    func collectPages<Record: Sendable>(
        _ fetch: @Sendable (String?) async -> Result<RecordPage<Record>, AppError>, id: (Record) -> String
    )
        async -> Result<[Record], AppError>
    {
        await gathering { onPage in try await streamPages(fetch, id: id, onPage: onPage) }
    }

    /// Every project whose name is exactly `name`, oldest first.
    public func projects(named name: String) async -> Result<[Project], AppError> {
        await projects(matching: Formula.nameEquals(name, field: fields.name)).map { found in
            found.filter { $0.name == name }.sorted { $0.createdTime < $1.createdTime }
        }
    }

    /// The projects `targets` may name, in one request: records of this table with those ids (Airtable's GET of one
    /// record would also return other tables' records), and projects whose name equals one ignoring case.
    public func candidates(for targets: [String]) async -> Result<[Project], AppError> {
        await projects(matching: Formula.any(targets.flatMap { Formula.idOrName($0, nameField: fields.name) }))
    }

    /// Whether `text` has the shape of a record id: `rec` and 14 letters or digits.
    public static func looksLikeRecordID(_ text: String) -> Bool {
        text.utf8.count == 17 && text.hasPrefix("rec")
            && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) }
    }

    /// Names of projects that may be what the user meant by `name`, from a bounded search.
    public func names(resembling name: String) async -> Result<[String], AppError> {
        guard let formula = Self.resemblanceFormula(name, field: fields.name) else { return .success([]) }
        return await projects(matching: formula, limit: 200, fields: [fields.name]).map { $0.compactMap(\.name) }
    }

    /// A formula for records whose `field` shares a word, or a word's first or last three letters, with `name`: a
    /// bounded stand-in for reading a whole table to suggest close names. Nil when `name` has no word to look for.
    public static func resemblanceFormula(_ name: String, field: String) -> String? {
        let value = "LOWER(\(Formula.field(field)))"
        var fragments: [String] = []
        for word in name.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init) {
            for fragment in [word] + (word.count >= 4 ? [String(word.prefix(3)), String(word.suffix(3))] : [])
            where fragment.count >= 2 && !fragments.contains(fragment) {
                fragments.append(fragment)
            }
        }
        guard !fragments.isEmpty else { return nil }
        let terms = fragments.prefix(24).map { "FIND(\(Formula.literal($0)), \(value))" }
        return Formula.any(Array(terms))
    }

    private func page(_ query: ListQuery, offset: String?) async -> Result<RecordPage<Project>, AppError> {
        await send(listRequest(tableURL, query, offset: offset), kind: .idempotent).flatMap { data in
            Result { () throws(AppError) in try RecordDecoding.projects(data, map: fields) }
        }
    }

    /// A listing of `table` as `GET`, or as `POST …/listRecords` when the URL would reach Airtable's limit.
    func listRequest(_ table: URL, _ query: ListQuery, offset: String?) -> HTTPRequest {
        let url = URL(
            string: table.absoluteString + "?" + Self.encode(query.queryItems(offset: offset)))!
        guard url.absoluteString.count >= Self.maximumURLLength else { return request(url, method: "GET") }
        return request(
            URL(string: table.absoluteString + "/listRecords")!, method: "POST",
            body: query.body(offset: offset))
    }

    // MARK: - Checks for doctor

    /// The user the token belongs to (`GET /v0/meta/whoami`, which needs no scope; the email only with
    /// `user.email:read`).
    public func whoami() async -> Result<Collaborator, AppError> {
        let url = URL(string: access.endpoint.absoluteString + "/v0/meta/whoami")!
        return await network.send(request(url, method: "GET"), kind: .idempotent).flatMap { data in
            let body = try? JSONParser.parse(data)
            guard let id = body?["id"]?.stringValue else { return .failure(.badResponse("whoami has no user id")) }
            return .success(Collaborator(id: id, email: body?["email"]?.stringValue))
        }
    }

    /// Reads at most one record, to prove the base and table are reachable with this token.
    public func probeTable() async -> Result<Void, AppError> {
        await projects(matching: "TRUE()", limit: 1).map { _ in () }
    }

    /// The schema API's answer for the base as it came, or nil when the token lacks `schema.bases:read`.
    public func schemaBody() async -> Result<JSONValue?, AppError> {
        let url = URL(
            string: access.endpoint.absoluteString + "/v0/meta/bases/" + Self.escape(access.baseID)
                + "/tables")!
        switch await network.send(request(url, method: "GET"), kind: .idempotent) {
        case .failure(.http(403, _)), .failure(.http(404, _)): return .success(nil)
        case .failure(let error): return .failure(error)
        case .success(let data): return Result { () throws(AppError) in try RecordDecoding.body(data) }.map { $0 }
        }
    }

    /// The bases the token reaches (`GET /v0/meta/bases`, every page), as id and name; nil without
    /// `schema.bases:read`.
    public func bases() async -> Result<[(id: String, name: String)]?, AppError> {
        var bases: [(id: String, name: String)] = []
        var offset: String?
        repeat {
            let query = offset.map { "?" + Self.encode([("offset", $0)]) } ?? ""
            let url = URL(string: access.endpoint.absoluteString + "/v0/meta/bases" + query)!
            switch await network.send(request(url, method: "GET"), kind: .idempotent) {
            case .failure(.http(403, _)): return .success(nil)
            case .failure(let error): return .failure(error)
            case .success(let data):
                guard let body = try? JSONParser.parse(data), let list = body["bases"]?.arrayValue else {
                    return .failure(.badResponse("bases is missing"))
                }
                for base in list {
                    if let id = base["id"]?.stringValue { bases.append((id, base["name"]?.stringValue ?? id)) }
                }
                offset = body["offset"]?.stringValue
            }
        } while offset != nil
        return .success(bases)
    }

    /// The base's tables, fields and views from the schema API, or nil when the token lacks `schema.bases:read`.
    func schema() async -> Result<BaseSchema?, AppError> {
        await schemaBody().flatMap { body in
            Result { () throws(AppError) in try body.map { body throws(AppError) in try BaseSchema(airtable: body) } }
        }
    }

    // MARK: - Requests

    var tableURL: URL { url(ofTable: access.table) }

    /// The records route of a table of the base, by name or id.
    func url(ofTable table: String) -> URL {
        URL(
            string: access.endpoint.absoluteString + "/v0/" + Self.escape(access.baseID) + "/"
                + Self.escape(table))!
    }

    /// Sends a request to a table's routes, explaining failures that only make sense with that table in mind. Not
    /// public: what leaves this target is a named route (a create, an update by ids), so no operation can send a
    /// write the session's rules do not see.
    func send(
        _ request: HTTPRequest, kind: RequestKind, beforeEachAttempt: (@Sendable () throws(AppError) -> Void)? = nil
    ) async -> Result<Data, AppError> {
        // `/v0/{base}/{table}/…`: the projects' table, or another (the Tasks table's routes).
        let segments = request.url.path.split(separator: "/")
        let table = segments.count >= 3 ? String(segments[2]) : access.table
        return await network.send(request, kind: kind, beforeEachAttempt: beforeEachAttempt).mapError {
            explain($0, table: table)
        }
    }

    /// Airtable's rules for the network helper: error bodies, the monthly quota, the inflated-length header.
    public static let rules = AirtableErrors.rules

    /// A 403 on a table's routes is what a wrong table name gets; a 422 about an unknown field of the projects' table
    /// means it has no field by a name tracker uses (another table's 422 is Airtable's own words).
    private func explain(_ error: AppError, table: String) -> AppError {
        guard case .http(let status, let body) = error else { return error }
        if status == 403, body.type == "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND" || body.type == nil {
            guard table == access.table else {
                return .tableAccessDenied(
                    table: table, baseID: access.baseID, body,
                    setting: "its name in the base; for the Tasks table, \"tasks\".\"table\" in the secrets file")
            }
            return .tableAccessDenied(table: access.table, baseID: access.baseID, body)
        }
        guard status == 422, table == access.table, let message = body.message else { return error }
        let missing: [String]
        if body.type == "UNKNOWN_FIELD_NAME", let quote = message.firstIndex(of: "\"") {
            missing = [String(message[message.index(after: quote)...].dropLast(message.hasSuffix("\"") ? 1 : 0))]
        } else if body.type == "INVALID_FILTER_BY_FORMULA", let range = message.firstRange(of: "Unknown field names: ")
        {
            missing = message[range.upperBound...].split(separator: ",").map {
                $0.trimmingWhitespace()
            }
        } else {
            return error
        }
        for name in missing {
            if let word = fields.word(forFieldNamed: name), let field = fields[word] {
                return .missingField(word: word.rawValue, field: field, table: access.table)
            }
        }
        return error
    }

    func request(_ url: URL, method: String, body: JSONValue? = nil) -> HTTPRequest {
        var request = HTTPRequest(url: url, method: method)
        request.setValue("Bearer \(access.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.body = Data(body.serialized().utf8)
        }
        return request
    }

    /// Percent-encodes query items, leaving only RFC 3986 unreserved characters bare.
    static func encode(_ items: [(String, String)]) -> String {
        items.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let isUnreserved =
                (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 122)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
            if isUnreserved {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
