import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
import TrackerSystem

/// A loopback stand-in for Airtable's Web API that answers as recorded traffic does (docs/airtable.md):
/// compressed bodies, both error shapes and the `errors` array of 429s, records of other tables returned by id,
/// `typecast` creating select options and linked records, a 414 for long URLs, the per-base rate limit with its
/// lockout, and faults injected on the n-th request.
public final class FakeAirtable: @unchecked Sendable {
    /// How the fake is set up; the defaults match the real service except for the lockout length.
    public struct Options: Sendable {
        public var token = "patFAKEfake000000.00000000000000000000000000000000000000000000000000000000000fa4e1"
        public var baseID = "appFAKEbase000001"
        public var table = "Design projects"
        public var tableID = "tblFAKEdesign0001"
        /// Requests allowed per base in any one-second window; nil for no limit.
        public var requestsPerSecond: Int?
        /// How long a burst locks the base out (Airtable: 30 s).
        public var lockoutSeconds = 30.0
        /// Whether 429 answers carry a Retry-After header (no recording shows one).
        public var sendsRetryAfter = false
        /// Seconds after which a page cursor expires; nil for never.
        public var iteratorLifetime: Double?
        /// Whether the token may read the base schema (`schema.bases:read`).
        public var grantsSchemaAccess = true
        /// What `GET /v0/meta/whoami` answers: the token's user id, and the email only with `user.email:read`
        /// (docs/airtable.md "Who the token is").
        public var user: (id: String, email: String?) = ("usrFAKEuser000001", nil)
        /// Other people's tokens, each its user's: a request with one is that person's (the log names them, as
        /// Airtable's history does).
        public var persons: [String: String] = [:]
        /// The emails `whoami` answers for people other than the token's own user, by user id.
        public var emails: [String: String] = [:]
        /// The OAuth integration the fake's `/oauth2/v1/…` answers for; nil: none (those routes refuse).
        public var oauth: FakeOAuthIntegration? = nil
        /// Bases the token reaches besides this one (`GET /v0/meta/bases`); their schemas are not served.
        public var otherBases: [String: String] = [:]
        /// Whether the token has `data.recordComments:read` and `:write`; without, comment routes answer 403.
        public var grantsCommentScopes = true
        /// Comments already on records, by record id, oldest first.
        public var comments: [String: [FakeComment]] = [:]
        /// Whether `typecast` may add choices to a select field (the user may change the schema).
        public var allowsSchemaChanges = true
        /// The coding answers use when the client accepts it (Airtable: gzip); nil for plain bodies.
        public var compression: HTTPCompression? = .gzip
        /// Template field names this base calls otherwise, e.g. `["Due date": "Deadline"]`.
        public var renamedFields: [String: String] = [:]
        /// Template fields this base does not have.
        public var removedFields: Set<String> = []
        /// The projects table's fields when they are not the template's (`renamedFields` then does not apply).
        public var projectFields: [FakeFieldSpec]?
        /// The projects table's saved views; nil for the template's.
        public var views: [FakeViewSpec]?
        /// The Tasks table's name, and the template's task fields it calls otherwise or lacks.
        public var tasksTable = "Tasks"
        public var renamedTaskFields: [String: String] = [:]
        public var removedTaskFields: Set<String> = []
        /// The tasks the base starts with; nil for the recorded projects' tasks. The projects' Tasks fields are set to
        /// match.
        public var tasks: [FakeTaskSpec]?
        /// Names for the Clients records the projects link to, in order of first appearance.
        public var clientNames: [String] = []
        /// URLs of this many characters or more get Airtable's 414.
        public var maximumURLLength = 16_000
        /// Seconds every answer is held back, as a distant server's round trip would be (the benchmark's 300 ms).
        public var latency = 0.0
        /// How much later than it leaves a request arrives, where the per-base limit counts it.
        public var arrivalDelay = ArrivalDelay()
        /// Whether the token has `webhook:manage` (every webhook route is 403 without it).
        public var grantsWebhookScope = true
        /// Whether the token's user created the base (making a webhook needs it).
        public var isBaseCreator = true

        public init() {}
    }

    /// How the internet delays a request between leaving the client and arriving where Airtable counts it: a
    /// connection's first request comes after DNS, TCP and TLS (100-300 ms to Airtable), every request after some
    /// jitter. On loopback the handshakes are instant: a client through the fake's SOCKS5 handshake waits for them
    /// (`opening(_:handshake:)`), and a client that connects directly has its first request held back instead.
    public struct ArrivalDelay: Sendable {
        /// Seconds a connection's first request is held back before it is counted.
        public var newConnection = 0.0
        /// Up to this many seconds more, drawn at random, for every request.
        public var jitter = 0.0

        public init(newConnection: Double = 0, jitter: Double = 0) {
            self.newConnection = newConnection
            self.jitter = jitter
        }

        /// The delay for one request.
        func seconds(firstOnConnection: Bool) -> Double {
            (firstOnConnection ? newConnection : 0) + (jitter > 0 ? Double.random(in: 0...jitter) : 0)
        }
    }

    static let rateLimitMessage = "Rate limit exceeded. Please try again later"

    /// One request as the fake saw it.
    public struct LogEntry: Sendable {
        /// When the request arrived, in seconds since the fake started.
        public var received: Double
        /// When it was answered, in seconds since the fake started.
        public var time: Double
        public var method: String
        public var path: String
        public var query: String
        /// The request body, as text.
        public var body: String
        /// The status answered, or nil when the connection was dropped or stalled.
        public var status: Int?
        /// The content coding of the answer, if it was compressed.
        public var encoding: String?
        /// Whose token the request carried (its user's id), when it was one the fake knows.
        public var user: String? = nil
    }

    public let options: Options
    /// The download host, and the bytes of every attachment.
    public let files = FakeFiles()
    private let lock = Locked(())
    private var server: HTTPServer?
    /// Seconds the fake's clock runs ahead of the real one (a test's week of nobody polling).
    var clockShift = 0.0
    private let started = Date()
    var base: FakeBase
    /// Comments by record id, oldest first.
    var recordComments: [String: [[String: Any]]] = [:]
    /// The base's webhooks, and their payloads.
    var hooks = FakeWebhookStore()
    /// Every ping sent to a hook's notification URL, oldest first.
    var pings: [FakePing] = []
    private var faults: [Int: Fault] = [:]
    private var metadataFaults: [Int: Fault] = [:]
    private var standingFault: Fault?
    private var pathFaults: [(suffix: String, fault: Fault)] = []
    private var methodFaults: [(method: String, fault: Fault)] = []
    private var requestCount = 0
    private var metadataRequestCount = 0
    private var entries: [LogEntry] = []
    /// Tokens revoked since the fake started: answered 401, as Airtable answers a deleted token.
    private var revoked: Set<String> = []
    /// Airtable's OAuth: its codes and tokens.
    var oauth = FakeOAuthState()
    private var recentRequests: [Double] = []
    private var lockedUntil = 0.0

    /// A fake holding `records`, Airtable's record objects (`id`, `createdTime`, `fields` by template field name).
    public init(options: Options = Options(), records: [[String: Any]]) {
        self.options = options
        self.base = FakeBase(options: options, projects: records)
        self.recordComments = options.comments.mapValues { $0.map(\.object) }
        keepFilesOfRecords()
    }

    /// The comments on a record now, oldest first.
    public func comments(on recordID: String) -> [[String: Any]] { locked { recordComments[recordID] ?? [] } }

    /// Starts serving on 127.0.0.1 at `port` (0 picks a free one) and returns the port.
    @discardableResult
    public func start(port: Int = 0) throws -> Int {
        let server = HTTPServer { [unowned self] request in handle(request) }
        let handshake = options.arrivalDelay.newConnection
        server.opening = { Self.opening($0, handshake: handshake) }
        try server.start(port: port)
        self.server = server
        files.latency = options.latency
        try files.start()
        signAttachments()
        // Seeding and signing the records are not writes a webhook reports.
        locked { for index in base.tables.indices { _ = base.tables[index].takeJournal() } }
        return server.port
    }

    /// Stops serving and drops open connections.
    public func stop() {
        server?.stop()
        files.stop()
    }

    /// `http://127.0.0.1:PORT`, the endpoint to point a client at.
    public var endpoint: String { "http://127.0.0.1:\(server?.port ?? 0)" }

    /// Makes the `number`-th request to the records routes from now on (1 = the next) misbehave; requests for the
    /// schema (`/v0/meta/…`), which a client may or may not send first, are not counted.
    public func inject(_ fault: Fault, onRequest number: Int) {
        locked { faults[requestCount + number] = fault }
    }

    /// Makes the `number`-th request for metadata (`/v0/meta/…`, the schema) from now on misbehave.
    public func inject(_ fault: Fault, onMetadataRequest number: Int) {
        locked { metadataFaults[metadataRequestCount + number] = fault }
    }

    /// Makes the next request whose path ends with `suffix` (`/uploadAttachment`) misbehave.
    public func inject(_ fault: Fault, onNextRequestEndingWith suffix: String) {
        locked { pathFaults.append((suffix, fault)) }
    }

    /// Makes the next request of `method` (`POST`: a create) to a table misbehave.
    public func inject(_ fault: Fault, onNextRequestWithMethod method: String) {
        locked { methodFaults.append((method, fault)) }
    }

    /// Makes every request misbehave until cleared with nil.
    public func injectOnEveryRequest(_ fault: Fault?) {
        locked { standingFault = fault }
    }

    /// Requests for records received so far, counted on arrival (the log has them only once answered).
    public var recordRequestsReceived: Int { locked { requestCount } }

    /// Every request seen so far.
    public var log: [LogEntry] { locked { entries } }

    /// The pings sent so far to hooks' notification URLs.
    public var pingsSent: [FakePing] { locked { pings } }

    /// Revokes `token` (a person's, or the fake's own): every request with it is 401 from now on.
    public func revoke(_ token: String) { locked { _ = revoked.insert(token) } }

    /// The user whose token `request` carries; nil for none the fake knows, or one revoked.
    func user(of request: HTTPRequest) -> String? {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count))
        guard !locked({ revoked.contains(token) }) else { return nil }
        if token == options.token { return options.user.id }
        return options.persons[token] ?? locked { oauth.user(ofAccess: token, at: Self.now.timeIntervalSince1970) }
    }

    /// The requests to the records routes seen so far: every one but those for the schema (`/v0/meta/…`).
    public var recordLog: [LogEntry] { log.filter { !$0.path.hasPrefix("/v0/meta/") } }

    /// The projects as they stand, in creation order, keyed by this base's field names.
    public var records: [[String: Any]] { records(inTable: options.table) }

    /// The records of any table of the base (`Clients`, `Tasks`), in creation order.
    public func records(inTable name: String) -> [[String: Any]] {
        locked {
            base.tableIndex(name).map { index in
                // As stored: attachment addresses are signed in answers only, so two looks at the base compare equal.
                base.tables[index].records.map { base.tables[index].json($0, fields: nil, signing: false) }
            } ?? []
        }
    }

    /// The choices of a select field of the projects table, as the schema holds them now.
    public func choices(ofField name: String) -> [String] {
        locked { base.tables[0].field(named: name)?.choices ?? [] }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }

    private var now: Double { Date().timeIntervalSince(started) }

    // MARK: - Handling

    /// How far the fake's clock runs ahead of the real one while a request is answered (see `letTimePass(days:)`).
    @TaskLocal static var shift = 0.0
    /// The fake's time now: the real time, moved on by what tests let pass.
    static var now: Date { Date().addingTimeInterval(shift) }

    private func handle(_ request: HTTPRequest) -> HTTPAction {
        // A connection through the fake's handshake has already waited for it.
        let opened = request.isFirstOnConnection && request.connectionNote != Self.handshaken
        let lag = options.arrivalDelay.seconds(firstOnConnection: opened)
        if lag > 0 { pause(seconds: lag) }
        let received = now
        if options.latency > 0 { pause(seconds: options.latency) }
        let fault = locked { () -> Fault? in
            // A person's browser at Airtable's grant page: not the API, not counted, no fault of the API's.
            if Self.isBrowserPage(request) { return nil }
            if request.path.hasPrefix("/v0/meta/") {
                metadataRequestCount += 1
                return metadataFaults.removeValue(forKey: metadataRequestCount) ?? standingFault
            }
            requestCount += 1
            if let index = pathFaults.firstIndex(where: { request.path.hasSuffix($0.suffix) }) {
                return pathFaults.remove(at: index).fault
            }
            if let index = methodFaults.firstIndex(where: { $0.method == request.method }) {
                return methodFaults.remove(at: index).fault
            }
            return faults.removeValue(forKey: requestCount) ?? standingFault
        }
        let coding = options.compression.flatMap {
            HTTPCompression.negotiate(request.header("accept-encoding"), preferred: $0)
        }
        // The fake's clock, moved on by `letTimePass(days:)`, is what every time it writes or answers reads.
        let shift = locked { clockShift }
        let plain = Self.$shift.withValue(shift) { respond(to: request, fault: fault) }
        // Not recorded for creates (docs/airtable.md has the header on listings only): the stricter reading is that a
        // write's answer may come without it, so the fake leaves it out there.
        let isWrite = request.method != "GET" && !request.path.hasSuffix("/listRecords")
        var action = Self.compress(plain, coding, statesInflatedLength: !isWrite)
        switch fault {
        case .recordedCompressedPage? where coding == .gzip:
            action = .respond(
                status: 200,
                headers: [
                    "Content-Encoding": "gzip",
                    "airtable-uncompressed-content-length": String(FakeAirtable.recordedResponse.count),
                ], body: FakeAirtable.recordedResponseGzip)
        case .chunked?:
            if case .respond(let code, var headers, let body) = action {
                headers["Transfer-Encoding"] = "chunked"
                action = .respond(status: code, headers: headers, body: body)
            }
        default: break
        }
        if case .shortInflated? = fault, let coding, case .respond(let code, var headers, let body) = plain {
            // The header keeps the whole length; the bytes are the first half, compressed whole.
            headers["Content-Encoding"] = coding.rawValue
            headers["airtable-uncompressed-content-length"] = String(body.count)
            action = .respond(status: code, headers: headers, body: coding.encode(body.prefix(body.count / 2)))
        }
        if shift != 0, case .respond(let code, var headers, let body) = action {
            headers["Date"] = HTTPStatus.date(Date().addingTimeInterval(shift))
            action = .respond(status: code, headers: headers, body: body)
        }
        var status: Int?
        switch action {
        case .respond(let code, _, _), .truncate(let code, _, _), .stallBody(_, let code, _, _),
            .resetMidBody(let code, _, _):
            status = code
        default: status = nil
        }
        let entry = LogEntry(
            received: received, time: now, method: request.method, path: request.path, query: request.query,
            body: String(decoding: request.body, as: UTF8.self), status: status,
            encoding: status == nil ? nil : coding?.rawValue, user: user(of: request))
        locked { entries.append(entry) }
        return action
    }

    /// Every answer's body in `coding`, with the headers Airtable sends alongside a compressed body.
    private static func compress(_ action: HTTPAction, _ coding: HTTPCompression?, statesInflatedLength: Bool)
        -> HTTPAction
    {
        guard let coding else { return action }
        func encoded(_ headers: [String: String], _ body: Data) -> ([String: String], Data) {
            var headers = headers
            headers["Content-Encoding"] = coding.rawValue
            if statesInflatedLength { headers["airtable-uncompressed-content-length"] = String(body.count) }
            return (headers, coding.encode(body))
        }
        switch action {
        case .respond(let status, let headers, let body):
            let (h, b) = encoded(headers, body)
            return .respond(status: status, headers: h, body: b)
        case .truncate(let status, let headers, let body):
            let (h, b) = encoded(headers, body)
            return .truncate(status: status, headers: h, body: b)
        case .stallBody(let seconds, let status, let headers, let body):
            let (h, b) = encoded(headers, body)
            return .stallBody(seconds: seconds, status: status, headers: h, body: b)
        default:
            return action
        }
    }

    private func respond(to request: HTTPRequest, fault: Fault?) -> HTTPAction {
        if case .deletedElsewhereFirst(let ids)? = fault {
            locked {
                base.tables[0].remove(ids: Set(ids))
                recordWebhookPayloads()
            }
        }
        switch fault {
        case .status(let code, let type, let message, let retryAfter)?:
            // An injected rate limit locks the base for its penalty, as a real one does (the monthly quota does not).
            if code == 429 && type == "RATE_LIMIT_REACHED" {
                locked { lockedUntil = max(lockedUntil, now + options.lockoutSeconds) }
            }
            var headers: [String: String] = [:]
            if let retryAfter { headers["Retry-After"] = retryAfter }
            return .respond(
                status: code, headers: headers, body: Self.errorBody(status: code, type: type, message: message))
        case .raw(let code, let body)?:
            let isJSON = body.hasPrefix("{")
            return .respond(
                status: code, headers: isJSON ? [:] : ["Content-Type": "text/html"], body: Data(body.utf8))
        case .reset?: return .reset
        case .stall(let seconds)?: return .stall(seconds: seconds)
        case .applyLate(let seconds)?:
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                _ = route(request, expireIterator: false)
            }
            return .stall(seconds: seconds + 0.5)
        case .htmlPage?:
            return .respond(
                status: 200, headers: ["Content-Type": "text/html"],
                body: Data("<html><body><h1>502 Bad Gateway</h1></body></html>".utf8))
        case .emptyBody?: return .respond(status: 200, headers: [:], body: Data())
        case .wrongShape?: return .respond(status: 200, headers: [:], body: Data(#"{"data":{"rows":[]}}"#.utf8))
        default: break
        }
        if case .delay(let seconds)? = fault { pause(seconds: seconds) }
        if !Self.isBrowserPage(request), let limited = rateLimit() { return limited }
        if let tooLong = uriTooLong(request) { return tooLong }
        let answer = route(request, expireIterator: { if case .expireIterator? = fault { true } else { false } }())
        switch (fault, answer) {
        case (.applyThenDrop?, _): return .close
        case (.applyThenGarbage?, _):
            return .respond(status: 200, headers: [:], body: Data(#"{"id":"rec"#.utf8 + [0xFF, 0xFE, 0x00]))
        case (.truncatedBody?, .respond(let code, let headers, let body)):
            return .truncate(status: code, headers: headers, body: body)
        case (.slowBody(let seconds)?, .respond(let code, let headers, let body)):
            return .stallBody(seconds: seconds, status: code, headers: headers, body: body)
        default: return answer
        }
    }

    /// Airtable's grant page (`airtable.com/oauth2/v1/authorize`) is the web app a person's browser opens, not the
    /// API: the per-base limit does not count it (its token endpoint is counted: the stricter reading, as Airtable
    /// does not say).
    static func isBrowserPage(_ request: HTTPRequest) -> Bool { request.path == "/oauth2/v1/authorize" }

    /// Applies the per-base limit: a request over it gets 429 and locks the base out.
    private func rateLimit() -> HTTPAction? {
        locked { () -> HTTPAction? in
            let time = now
            recentRequests.removeAll { $0 <= time - 1 }
            // A lockout (from going over the limit, or an injected 429) holds whether or not a limit is enforced.
            let isOver = options.requestsPerSecond.map { recentRequests.count >= $0 } ?? false
            if time < lockedUntil || isOver {
                if time >= lockedUntil { lockedUntil = time + options.lockoutSeconds }
                var headers: [String: String] = [:]
                if options.sendsRetryAfter { headers["Retry-After"] = String(Int((lockedUntil - time).rounded(.up))) }
                return .respond(
                    status: 429, headers: headers,
                    body: Self.errorBody(status: 429, type: "RATE_LIMIT_REACHED", message: Self.rateLimitMessage))
            }
            recentRequests.append(time)
            return nil
        }
    }

    /// Airtable's answer to a URL of 16,000 characters or more: a 414 whose body is not Airtable JSON.
    private func uriTooLong(_ request: HTTPRequest) -> HTTPAction? {
        let length = "http://".count + (request.header("host") ?? "").count + request.target.count
        guard length >= options.maximumURLLength else { return nil }
        return .respond(
            status: 414, headers: ["Content-Type": "text/html"],
            body: Data("<html><head><title>414 Request-URI Too Large</title></head><body></body></html>".utf8))
    }

    /// An error body in the shape recorded for the status: 429s carry an `errors` array, the rest an `error` object.
    static func errorBody(status: Int, type: String?, message: String?) -> Data {
        guard let type else { return Data("{}".utf8) }
        if status == 429 {
            return json(["errors": [["error": type, "message": message ?? ""]]])
        }
        var error: [String: Any] = ["type": type]
        if let message { error["message"] = message }
        return json(["error": error])
    }

    static func json(_ object: Any) -> Data {
        AnyJSON.data(object)
    }
}
