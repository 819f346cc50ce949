import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Knows Airtable's routes and JSON for the projects table; sends everything through a `NetworkHelper`.
public struct ProjectAPIClient: Sendable {
    /// Airtable answers 414 to URLs this long or longer; such listings go through `POST …/listRecords`.
    static let maximumURLLength = 16_000

    let configuration: Configuration
    let network: NetworkHelper
    private let now: @Sendable () -> Date

    public init(configuration: Configuration, network: NetworkHelper, now: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.network = network
        self.now = now
    }

    /// The base's names for tracker's fields.
    public var fields: FieldMap { configuration.fields }

    // MARK: - Reading

    /// Streams every project matching `query`, one page at a time, restarting if Airtable expires the page cursor.
    ///
    /// `onPage` sees each page once as it arrives; no project is passed twice, even across a restart. Failures are
    /// thrown as `AppError`; whatever `onPage` throws passes through unchanged.
    public func listProjects(_ query: ListQuery, onPage: ([Project]) throws -> Void) async throws {
        var seen = Set<String>()
        var offset: String?
        var restarts = 0
        while true {
            switch await page(query, offset: offset) {
            case .success(let page):
                let fresh = restarts == 0 ? page.records : page.records.filter { !seen.contains($0.id) }
                if restarts > 0 || page.offset != nil { for project in page.records { seen.insert(project.id) } }
                try onPage(fresh)
                guard let next = page.offset else { return }
                offset = next
            case .failure(.http(422, let body))
            where body.type == "LIST_RECORDS_ITERATOR_NOT_AVAILABLE" && offset != nil:
                guard restarts < 3 else { throw AppError.http(status: 422, body) }
                restarts += 1
                offset = nil
            case .failure(let error):
                throw error
            }
        }
    }

    /// Every project matching `formula`, all pages.
    public func projects(matching formula: String, limit: Int? = nil, fields: [String]? = nil) async -> Result<
        [Project], AppError
    > {
        var found: [Project] = []
        do {
            try await listProjects(ListQuery(filterByFormula: formula, maxRecords: limit, fields: fields)) {
                found += $0
            }
        } catch {
            return .failure(error as? AppError ?? .badResponse("\(error)"))
        }
        return .success(found)
    }

    /// Every project whose name is exactly `name`, oldest first.
    public func projects(named name: String) async -> Result<[Project], AppError> {
        await projects(matching: Formula.nameEquals(name, fields: fields)).map { found in
            found.filter { $0.name == name }.sorted { $0.createdTime < $1.createdTime }
        }
    }

    /// The projects `target` may name, in one request: the record of this table with that id (Airtable's GET of one
    /// record would also return other tables' records), and projects whose name equals it ignoring case.
    public func candidates(for target: String) async -> Result<[Project], AppError> {
        let name = Formula.field(fields[.name])
        var terms = ["LOWER(\(name)) = LOWER(\(Formula.literal(target)))"]
        if Self.looksLikeRecordID(target) { terms.insert("RECORD_ID() = \(Formula.literal(target))", at: 0) }
        return await projects(matching: terms.count == 1 ? terms[0] : "OR(\(terms.joined(separator: ", ")))")
    }

    /// Whether `text` has the shape of a record id: `rec` and 14 letters or digits.
    public static func looksLikeRecordID(_ text: String) -> Bool {
        text.utf8.count == 17 && text.hasPrefix("rec")
            && text.unicodeScalars.allSatisfy { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
    }

    /// Names of projects that may be what the user meant by `name`, from at most 200 projects whose names share a
    /// word or a word's first or last letters with it, so the table is never read whole.
    public func names(resembling name: String) async -> Result<[String], AppError> {
        let field = "LOWER(\(Formula.field(fields[.name])))"
        var fragments: [String] = []
        for word in name.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init) {
            for fragment in [word] + (word.count >= 4 ? [String(word.prefix(3)), String(word.suffix(3))] : [])
            where fragment.count >= 2 && !fragments.contains(fragment) {
                fragments.append(fragment)
            }
        }
        guard !fragments.isEmpty else { return .success([]) }
        let terms = fragments.prefix(24).map { "FIND(\(Formula.literal($0)), \(field))" }
        let formula = terms.count == 1 ? terms[0] : "OR(\(terms.joined(separator: ", ")))"
        return await projects(matching: formula, limit: 200, fields: [fields[.name]]).map { $0.compactMap(\.name) }
    }

    private func page(_ query: ListQuery, offset: String?) async -> Result<RecordPage, AppError> {
        let url = URL(
            string: tableURL.absoluteString + "?" + Self.encode(query.queryItems(offset: offset, fields: fields)))!
        let request =
            url.absoluteString.count < Self.maximumURLLength
            ? self.request(url, method: "GET")
            : self.request(
                URL(string: tableURL.absoluteString + "/listRecords")!, method: "POST",
                body: query.body(offset: offset, fields: fields))
        return await send(request, kind: .idempotent).flatMap { decode(RecordPage.self, from: $0) }
    }

    // MARK: - Checks for doctor

    /// The id of the user the token belongs to (`GET /v0/meta/whoami`, which needs no scope).
    public func whoami() async -> Result<String, AppError> {
        let url = URL(string: configuration.endpoint.absoluteString + "/v0/meta/whoami")!
        return await network.send(request(url, method: "GET"), kind: .idempotent).flatMap { data in
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let id = object["id"] as? String
            else { return .failure(.badResponse("whoami has no user id")) }
            return .success(id)
        }
    }

    /// Reads at most one record, to prove the base and table are reachable with this token.
    public func probeTable() async -> Result<Void, AppError> {
        await projects(matching: "TRUE()", limit: 1).map { _ in () }
    }

    /// The base's tables and fields from the schema API, or nil when the token lacks `schema.bases:read`.
    public func schema() async -> Result<BaseSchema?, AppError> {
        let url = URL(
            string: configuration.endpoint.absoluteString + "/v0/meta/bases/" + Self.escape(configuration.baseID)
                + "/tables")!
        switch await network.send(request(url, method: "GET"), kind: .idempotent) {
        case .failure(.http(403, _)), .failure(.http(404, _)): return .success(nil)
        case .failure(let error): return .failure(error)
        case .success(let data): return decode(BaseSchema.self, from: data).map { $0 }
        }
    }

    // MARK: - Writing

    /// Creates one project and returns it as Airtable stored it; never creates it twice.
    ///
    /// The create is sent again only when the failure proves it was not applied (refused connection, DNS, 429: the
    /// network helper's retries). After a timeout, a reset, a 5xx or an unreadable answer Airtable may have applied it,
    /// even seconds later; tracker then looks for it until it appears or the retry budget is spent, and never sends it
    /// again.
    public func createProject(_ draft: ProjectDraft) async -> Result<Project, AppError> {
        // Allow for the machine's clock running ahead of Airtable's.
        let since = Self.timestamp(now().addingTimeInterval(-120))
        let started = network.now()
        switch await send(request(tableURL, method: "POST", body: createBody(draft)), kind: .notIdempotent) {
        case .success(let data):
            if case .success(let project) = decode(Project.self, from: data) { return .success(project) }
            // A 2xx means it was applied, whatever the body says.
            return await findCreated(draft, since: since, startedAt: started)
        case .failure(.requestOutcomeUnknown):
            return await findCreated(draft, since: since, startedAt: started)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Looks for the project a create with a lost answer would have made, with growing pauses.
    private func findCreated(_ draft: ProjectDraft, since: String, startedAt started: Double) async -> Result<
        Project, AppError
    > {
        network.notice(
            "Airtable's answer to the create was lost; looking for \"\(draft.name)\" before doing anything else…")
        let found = await network.poll(startedAt: started) { () async -> Result<Project?, AppError> in
            await projects(named: draft.name).map { matches in
                matches.last { $0.due == draft.due && $0.createdTime >= since }
            }
        }
        switch found {
        case .success(let project?): return .success(project)
        case .failure(.interrupted): return .failure(.interrupted)
        default:
            return .failure(
                .createOutcomeUnknown(name: draft.name, waitedSeconds: Int((network.now() - started).rounded())))
        }
    }

    /// The JSON body `add` sends: `{"fields": …, "typecast": true}`, so select options and client names resolve.
    public func createBody(_ draft: ProjectDraft) -> JSONValue {
        var values: [(String, JSONValue)] = [
            (fields[.name], .string(draft.name)),
            (fields[.due], .string(draft.due.description)),
        ]
        if let kickoff = draft.kickoff { values.append((fields[.kickoff], .string(kickoff.description))) }
        if let category = draft.category { values.append((fields[.category], .string(category))) }
        if let lead = draft.leadEmail { values.append((fields[.lead], .object([("email", .string(lead))]))) }
        if !draft.teamEmails.isEmpty {
            values.append((fields[.team], .array(draft.teamEmails.map { .object([("email", .string($0))]) })))
        }
        if !draft.clients.isEmpty { values.append((fields[.client], .array(draft.clients.map(JSONValue.string)))) }
        if let notes = draft.notes { values.append((fields[.notes], .string(notes))) }
        if draft.isComplete { values.append((fields[.complete], .bool(true))) }
        return .object([("fields", .object(values)), ("typecast", .bool(true))])
    }

    // MARK: - Requests

    private var tableURL: URL {
        URL(
            string: configuration.endpoint.absoluteString + "/v0/" + Self.escape(configuration.baseID) + "/"
                + Self.escape(configuration.table))!
    }

    /// Sends a request to the table's routes, explaining failures that only make sense with the table in mind.
    private func send(_ request: URLRequest, kind: RequestKind) async -> Result<Data, AppError> {
        await network.send(request, kind: kind).mapError(explain)
    }

    /// A 403 on the table's routes is what a wrong table name gets; a 422 about an unknown field means the table has
    /// no field by a name tracker uses.
    private func explain(_ error: AppError) -> AppError {
        guard case .http(let status, let body) = error else { return error }
        if status == 403, body.type == "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND" || body.type == nil {
            return .tableAccessDenied(table: configuration.table, baseID: configuration.baseID, body)
        }
        guard status == 422, let message = body.message else { return error }
        let missing: [String]
        if body.type == "UNKNOWN_FIELD_NAME", let quote = message.firstIndex(of: "\"") {
            missing = [String(message[message.index(after: quote)...].dropLast(message.hasSuffix("\"") ? 1 : 0))]
        } else if body.type == "INVALID_FILTER_BY_FORMULA", let range = message.range(of: "Unknown field names: ") {
            missing = message[range.upperBound...].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        } else {
            return error
        }
        for name in missing {
            if let word = fields.word(forFieldNamed: name) {
                return .missingField(word: word.rawValue, field: fields[word], table: configuration.table)
            }
        }
        return error
    }

    private func request(_ url: URL, method: String, body: JSONValue? = nil) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(configuration.token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("tracker/\(Version.current)", forHTTPHeaderField: "User-Agent")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.serialized().utf8)
        }
        return request
    }

    /// Percent-encodes query items, leaving only RFC 3986 unreserved characters bare.
    static func encode(_ items: [(String, String)]) -> String {
        items.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) -> Result<T, AppError> {
        if data.isEmpty { return .failure(.badResponse("the body is empty")) }
        let decoder = JSONDecoder()
        decoder.userInfo[.fieldMap] = fields
        do {
            return .success(try decoder.decode(type, from: data))
        } catch let error as DecodingError {
            let start = data.prefix(64).drop(while: { $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 })
            if start.first == UInt8(ascii: "<") { return .failure(.badResponse("got an HTML page instead of JSON")) }
            return .failure(.badResponse(error.summary))
        } catch {
            return .failure(.badResponse("the body is not JSON"))
        }
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
