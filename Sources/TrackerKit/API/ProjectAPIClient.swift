import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Knows Airtable's routes and JSON for the "Design projects" table; sends everything through a `NetworkHelper`.
public struct ProjectAPIClient: Sendable {
    /// Airtable rejects URLs longer than this; longer listings go through `POST …/listRecords`.
    static let maximumURLLength = 16_000

    private let configuration: Configuration
    private let network: NetworkHelper
    private let now: @Sendable () -> Date

    public init(configuration: Configuration, network: NetworkHelper, now: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.network = network
        self.now = now
    }

    // MARK: - Reading

    /// Streams every project matching `query`, one page at a time, restarting if Airtable expires the page cursor.
    ///
    /// `onPage` sees each page once as it arrives; no project is passed twice, even across a restart. Failures are
    /// thrown as `AppError`; whatever `onPage` throws passes through unchanged.
    public func listProjects(_ query: ListQuery, onPage: ([Project]) throws -> Void) async throws {
        var seen = Set<Int>()
        var offset: String?
        var restarts = 0
        while true {
            switch await page(query, offset: offset) {
            case .success(let page):
                let fresh = restarts == 0 ? page.records : page.records.filter { !seen.contains($0.id.hashValue) }
                for project in page.records { seen.insert(project.id.hashValue) }
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

    /// The project with record id `id`; a 404 becomes `notFound`.
    public func project(id: String) async -> Result<Project, AppError> {
        let url = URL(string: tableURL.absoluteString + "/" + Self.escape(id))!
        return await network.send(request(url, method: "GET"), kind: .idempotent)
            .mapError { error in
                if case .http(404, _) = error {
                    return .notFound("no project has id \(id)", hint: "Run 'tracker list' to see the ids.")
                }
                return error
            }
            .flatMap { decode(Project.self, from: $0) }
    }

    /// Every project whose name is exactly `name`, oldest first.
    public func projects(named name: String) async -> Result<[Project], AppError> {
        var found: [Project] = []
        do {
            try await listProjects(ListQuery(filterByFormula: Formula.nameEquals(name))) { page in
                found += page.filter { $0.name == name }
            }
        } catch {
            return .failure(error as? AppError ?? .badResponse("\(error)"))
        }
        return .success(found.sorted { $0.createdTime < $1.createdTime })
    }

    private func page(_ query: ListQuery, offset: String?) async -> Result<RecordPage, AppError> {
        let items = query.queryItems(offset: offset)
        let url = URL(string: tableURL.absoluteString + "?" + Self.encode(items))!
        let request =
            url.absoluteString.count <= Self.maximumURLLength
            ? self.request(url, method: "GET")
            : self.request(
                URL(string: tableURL.absoluteString + "/listRecords")!, method: "POST", body: query.body(offset: offset)
            )
        return await network.send(request, kind: .idempotent).flatMap { decode(RecordPage.self, from: $0) }
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
        do {
            try await listProjects(ListQuery(maxRecords: 1, pageSize: 1)) { _ in }
            return .success(())
        } catch {
            return .failure(error as? AppError ?? .badResponse("\(error)"))
        }
    }

    /// The table's field names and types from the schema API, or nil when the token lacks `schema.bases:read`.
    public func fieldTypes() async -> Result<[String: String]?, AppError> {
        let url = URL(
            string: configuration.endpoint.absoluteString + "/v0/meta/bases/" + Self.escape(configuration.baseID)
                + "/tables")!
        switch await network.send(request(url, method: "GET"), kind: .idempotent) {
        case .failure(.http(403, _)), .failure(.http(404, _)): return .success(nil)
        case .failure(let error): return .failure(error)
        case .success(let data):
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let tables = object?["tables"] as? [[String: Any]] ?? []
            guard
                let table = tables.first(where: {
                    $0["name"] as? String == configuration.table || $0["id"] as? String == configuration.table
                })
            else {
                return .failure(
                    .notFound(
                        "the base has no table \"\(configuration.table)\"",
                        hint: "Check \"table\" in your secrets file or AIRTABLE_TABLE."))
            }
            var types: [String: String] = [:]
            for field in table["fields"] as? [[String: Any]] ?? [] {
                if let name = field["name"] as? String { types[name] = field["type"] as? String ?? "" }
            }
            return .success(types)
        }
    }

    // MARK: - Writing

    /// Creates one project and returns it as Airtable stored it; never creates it twice.
    ///
    /// When the answer to the POST is lost, the project may or may not exist. tracker then looks for a project with
    /// this name and due date created since just before the attempt, and reports it if found, or creates it once.
    public func createProject(_ draft: ProjectDraft) async -> Result<Project, AppError> {
        // Allow for the machine's clock running ahead of Airtable's.
        let since = Self.timestamp(now().addingTimeInterval(-120))
        let request = request(tableURL, method: "POST", body: Self.createBody(draft))
        for _ in 0..<3 {
            switch await network.send(request, kind: .notIdempotent) {
            case .success(let data):
                return decode(Project.self, from: data)
            case .failure(.requestOutcomeUnknown):
                switch await projects(named: draft.name) {
                case .success(let matches):
                    if let created = matches.last(where: { $0.due == draft.due && $0.createdTime >= since }) {
                        return .success(created)
                    }
                case .failure:
                    return .failure(.outcomeUnknown(name: draft.name))
                }
            case .failure(let error):
                return .failure(error)
            }
        }
        return .failure(.outcomeUnknown(name: draft.name))
    }

    /// The JSON body `add` sends: `{"fields": …, "typecast": true}`, so select options and client names resolve.
    public static func createBody(_ draft: ProjectDraft) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            (ProjectField.name, .string(draft.name)),
            (ProjectField.due, .string(draft.due.description)),
        ]
        if let kickoff = draft.kickoff { fields.append((ProjectField.kickoff, .string(kickoff.description))) }
        if let category = draft.category { fields.append((ProjectField.category, .string(category))) }
        if let lead = draft.leadEmail { fields.append((ProjectField.lead, .object([("email", .string(lead))]))) }
        if !draft.teamEmails.isEmpty {
            fields.append((ProjectField.team, .array(draft.teamEmails.map { .object([("email", .string($0))]) })))
        }
        if !draft.clients.isEmpty { fields.append((ProjectField.client, .array(draft.clients.map(JSONValue.string)))) }
        if let notes = draft.notes { fields.append((ProjectField.notes, .string(notes))) }
        if draft.isComplete { fields.append((ProjectField.complete, .bool(true))) }
        return .object([("fields", .object(fields)), ("typecast", .bool(true))])
    }

    // MARK: - Requests

    private var tableURL: URL {
        URL(
            string: configuration.endpoint.absoluteString + "/v0/" + Self.escape(configuration.baseID) + "/"
                + Self.escape(configuration.table))!
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
        do {
            return .success(try JSONDecoder().decode(type, from: data))
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
