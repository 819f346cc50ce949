import Foundation

/// A loopback stand-in for Airtable's Web API that behaves as airtable-api.md records: Bearer auth, paging with
/// expiring cursors, formulas, creates with typecast, error bodies, the per-base rate limit with its lockout, and
/// faults injected on the n-th request.
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
        /// Whether 429 answers carry a Retry-After header (Airtable documents none).
        public var sendsRetryAfter = false
        /// Seconds after which a page cursor expires; nil for never.
        public var iteratorLifetime: Double?
        /// Whether the token may read the base schema (`schema.bases:read`).
        public var grantsSchemaAccess = true

        public init() {}
    }

    /// A misbehaviour to apply to one request instead of, or on top of, its normal answer.
    public enum Fault: Sendable {
        /// Answer with this status and an Airtable error body; nothing is applied.
        case status(Int, type: String?, message: String? = nil, retryAfter: String? = nil)
        /// Reset the connection before answering; nothing is applied.
        case reset
        /// Apply the request, then close the connection without answering.
        case applyThenDrop
        /// Apply the request, then send only half of the body.
        case truncatedBody
        /// Never answer: hold the connection silent for this long.
        case stall(seconds: Double)
        /// Send the headers, then hold the body back for this long.
        case slowBody(seconds: Double)
        /// Treat the request's page cursor as expired.
        case expireIterator
        /// Answer 200 with an HTML error page.
        case htmlPage
        /// Answer 200 with an empty body.
        case emptyBody
        /// Answer 200 with a body that is JSON but not a page of records.
        case wrongShape
    }

    /// One request as the fake saw it.
    public struct LogEntry: Sendable {
        /// Seconds since the fake started, on the monotonic clock.
        public var time: Double
        public var method: String
        public var path: String
        public var query: String
        /// The status answered, or nil when the connection was dropped or stalled.
        public var status: Int?
    }

    public let options: Options
    private let lock = NSLock()
    private var server: HTTPServer?
    private let started = Date()
    var store: RecordStore
    private var faults: [Int: Fault] = [:]
    private var standingFault: Fault?
    private var requestCount = 0
    private var entries: [LogEntry] = []
    private var recentRequests: [Double] = []
    private var lockedUntil = 0.0

    /// A fake holding `records`, Airtable's record objects (`id`, `createdTime`, `fields`).
    public init(options: Options = Options(), records: [[String: Any]]) {
        self.options = options
        self.store = RecordStore(records: records)
    }

    /// Starts serving on 127.0.0.1 at `port` (0 picks a free one) and returns the port.
    @discardableResult
    public func start(port: Int = 0) throws -> Int {
        let server = HTTPServer { [unowned self] request in handle(request) }
        try server.start(port: port)
        self.server = server
        return server.port
    }

    /// Stops serving and drops open connections.
    public func stop() { server?.stop() }

    /// `http://127.0.0.1:PORT`, the endpoint to point a client at.
    public var endpoint: String { "http://127.0.0.1:\(server?.port ?? 0)" }

    /// Makes the `number`-th request from now on (1 = the next) misbehave.
    public func inject(_ fault: Fault, onRequest number: Int) {
        locked { faults[requestCount + number] = fault }
    }

    /// Makes every request misbehave until cleared with nil.
    public func injectOnEveryRequest(_ fault: Fault?) {
        locked { standingFault = fault }
    }

    /// Every request seen so far.
    public var log: [LogEntry] { locked { entries } }

    /// The records as they stand, in creation order.
    public var records: [[String: Any]] { locked { store.records.map { $0.json(fields: nil) } } }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private var now: Double { Date().timeIntervalSince(started) }

    // MARK: - Handling

    private func handle(_ request: HTTPRequest) -> HTTPAction {
        let fault = locked { () -> Fault? in
            requestCount += 1
            return faults.removeValue(forKey: requestCount) ?? standingFault
        }
        let action = respond(to: request, fault: fault)
        var status: Int?
        switch action {
        case .respond(let code, _, _), .truncate(let code, _), .stallBody(_, let code, _): status = code
        default: status = nil
        }
        let entry = LogEntry(
            time: now, method: request.method, path: request.path, query: request.query, status: status)
        locked { entries.append(entry) }
        return action
    }

    private func respond(to request: HTTPRequest, fault: Fault?) -> HTTPAction {
        switch fault {
        case .status(let code, let type, let message, let retryAfter)?:
            var headers: [String: String] = [:]
            if let retryAfter { headers["Retry-After"] = retryAfter }
            return .respond(status: code, headers: headers, body: Self.errorBody(type: type, message: message))
        case .reset?: return .reset
        case .stall(let seconds)?: return .stall(seconds: seconds)
        case .htmlPage?:
            return .respond(
                status: 200, headers: ["Content-Type": "text/html"],
                body: Data("<html><body><h1>502 Bad Gateway</h1></body></html>".utf8))
        case .emptyBody?: return .respond(status: 200, headers: [:], body: Data())
        case .wrongShape?: return .respond(status: 200, headers: [:], body: Data(#"{"data":{"rows":[]}}"#.utf8))
        default: break
        }
        if let limited = rateLimit() { return limited }
        let answer = route(request, expireIterator: { if case .expireIterator? = fault { true } else { false } }())
        switch (fault, answer) {
        case (.applyThenDrop?, _): return .close
        case (.truncatedBody?, .respond(let code, _, let body)): return .truncate(status: code, body: body)
        case (.slowBody(let seconds)?, .respond(let code, _, let body)):
            return .stallBody(seconds: seconds, status: code, body: body)
        default: return answer
        }
    }

    /// Applies the per-base limit: a request over it gets 429 and locks the base out.
    private func rateLimit() -> HTTPAction? {
        guard let limit = options.requestsPerSecond else { return nil }
        return locked { () -> HTTPAction? in
            let time = now
            recentRequests.removeAll { $0 <= time - 1 }
            if time < lockedUntil || recentRequests.count >= limit {
                if time >= lockedUntil { lockedUntil = time + options.lockoutSeconds }
                var headers: [String: String] = [:]
                if options.sendsRetryAfter { headers["Retry-After"] = String(Int((lockedUntil - time).rounded(.up))) }
                return .respond(
                    status: 429, headers: headers,
                    body: Self.errorBody(
                        type: "RATE_LIMIT_REACHED", message: "Rate limit exceeded. Please try again later"))
            }
            recentRequests.append(time)
            return nil
        }
    }

    static func errorBody(type: String?, message: String?) -> Data {
        guard let type else { return Data("{}".utf8) }
        var error: [String: Any] = ["type": type]
        if let message { error["message"] = message }
        return json(["error": error])
    }

    static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
