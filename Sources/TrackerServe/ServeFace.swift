#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerMCP
import TrackerModel
import TrackerSystem

/// `tracker serve`: the MCP tools over HTTP for a team's assistants, each person as themselves. One path for the
/// protocol (`/mcp`), and what a service needs beside it: its health, its metrics, the metadata that tells a client how
/// to authenticate, one log line a request.
package final class ServeFace: Sendable {
    /// Where it listens and how it is reached.
    package struct Settings: Sendable {
        package var host = "127.0.0.1"
        package var port = 8765
        /// The address clients reach it at, through the team's reverse proxy (`https://…`, no trailing slash); nil on
        /// loopback alone.
        package var publicURL: String?
        /// Origins a browser may call it from, besides its own.
        package var origins: [String] = []

        package init() {}
    }

    /// What the executable gives the face.
    package struct Host: Sendable {
        /// Who a request is: serve's own sign-in (OAuth 2.1, chained to Airtable's).
        package var signIn: SignIn
        /// Why the server cannot vouch for what it serves now; nil when it can.
        package var health: @Sendable () async -> String?
        /// More lines for `/metrics` (the month's requests, the copy).
        package var figures: @Sendable () -> [String] = { [] }
        /// One line on the face's log (stderr).
        package var log: @Sendable (String) -> Void
        /// Checks Airtable's pings (armed once serve keeps a webhook that pings it).
        package var pings = PingCheck()
        /// A good ping came: the copy's poller, wherever it runs, rounds now.
        package var pinged: @Sendable () -> Void = {}
        package var now: @Sendable () -> Date = { Date() }
        /// The approval page's work as the person signed in; nil: no page.
        package var approvals: ApprovalActions? = nil

        package init(
            signIn: SignIn, health: @escaping @Sendable () async -> String?,
            log: @escaping @Sendable (String) -> Void
        ) {
            self.signIn = signIn
            self.health = health
            self.log = log
        }
    }

    package let settings: Settings
    let host: Host
    let mcp: MCPOverHTTP
    package let metrics = ServeMetrics()
    private let state = Locked((inFlight: 0, draining: false))
    private let server = Locked<HTTPServer?>(nil)

    package init(settings: Settings, host: Host, mcp: MCPOverHTTP) {
        self.settings = settings
        self.host = host
        self.mcp = mcp
    }

    /// Starts listening; the port bound (the one asked for, or any when 0).
    @discardableResult
    package func start() throws -> Int {
        let server = HTTPServer(limits: .serving) { [self] in handle($0) }
        try server.start(port: settings.port, host: settings.host)
        self.server.withLock { $0 = server }
        return server.port
    }

    /// Stops taking requests (a new one is 503), waits up to `seconds` for those in flight, then closes.
    package func drain(within seconds: Double) async {
        state.withLock { $0.draining = true }
        let end = MonotonicClock.now() + seconds
        while state.withLock({ $0.inFlight }) > 0, MonotonicClock.now() < end { await MonotonicClock.sleep(0.02) }
        server.withLock { $0 }?.stop()
    }

    /// Where the server says it is reached: the public URL, else its own address.
    package var origin: String {
        if let publicURL = settings.publicURL { return publicURL }
        return "http://\(settings.host):\(server.withLock { $0?.port } ?? settings.port)"
    }

    /// Answers one request, on its connection's thread.
    func handle(_ request: ServedRequest) -> HTTPAction {
        let started = MonotonicClock.now()
        let admitted = state.withLock { state -> Bool in
            guard !state.draining else { return false }
            state.inFlight += 1
            return true
        }
        guard admitted else { return MCPOverHTTP.plain(503, "Service Unavailable: the server is stopping") }
        defer { state.withLock { $0.inFlight -= 1 } }
        var record = LogRecord(method: request.method, path: request.path)
        let action = route(request, &record)
        record.status = Self.status(of: action)
        record.seconds = MonotonicClock.now() - started
        metrics.answered(path: Self.known(request.path), status: record.status)
        if let tool = record.tool {
            metrics.called(tool: tool, outcome: record.status < 400 ? "answered" : "refused", seconds: record.seconds)
        }
        host.log(record.line(at: host.now()))
        return action
    }

    private func route(_ request: ServedRequest, _ record: inout LogRecord) -> HTTPAction {
        // DNS rebinding: a browser page may not call the tools from a foreign origin. The sign-in's pages are the
        // browser's own navigation (its form posts carry `Origin: null` under no-referrer), kept by CSRF instead.
        if request.path == "/mcp", let origin = request.header("origin"), !allows(origin) {
            return MCPOverHTTP.plain(403, "Forbidden: the origin \(origin.prefix(200)) is not one this server serves")
        }
        if request.path.hasPrefix("/approve/") { return approvalPage(request, &record) }
        guard let found = Self.routes.first(where: { $0.path == request.path }) else {
            return MCPOverHTTP.plain(404, "Not Found: the MCP endpoint is /mcp")
        }
        return found.handle(self, request, &record)
    }

    /// The MCP path: serve's own bearer, then the call as that person.
    func mcp(_ request: ServedRequest, _ record: inout LogRecord) -> HTTPAction {
        guard let token = Self.bearer(request.header("authorization")) else { return unauthorized(nil) }
        let verdict = Blocking.wait { [host] in await host.signIn.verdict(on: token) }
        let person: Person
        switch verdict {
        case .person(let found): person = found
        case .unavailable(let why):
            return .respond(
                status: 503, headers: ["Retry-After": "5", "Content-Type": "text/plain; charset=utf-8"],
                body: Data("Service Unavailable: the token could not be checked now (\(why))\n".utf8))
        case .refused(let why, let expired):
            metrics.refusedBearer()
            return unauthorized(expired ? why : nil)
        }
        record.user = person.userID
        record.client = person.clientID
        let outcome = mcp.answer(request, person: person)
        record.tool = outcome.tool
        return outcome.action
    }

    /// 401, saying where the protected resource's metadata is (RFC 9728) and the scope to ask for; `invalid_token`
    /// with why when the bearer was one of serve's and is no longer.
    private func unauthorized(_ invalid: String?) -> HTTPAction {
        var challenge =
            "Bearer resource_metadata=\"\(origin)/.well-known/oauth-protected-resource/mcp\", scope=\"\(host.signIn.scopesSupported.joined(separator: " "))\""
        if let invalid {
            challenge +=
                ", error=\"invalid_token\", error_description=\"\(invalid.filter { $0 != "\"" && $0 != "\\" })\""
        }
        return .respond(
            status: 401, headers: ["WWW-Authenticate": challenge, "Content-Type": "text/plain; charset=utf-8"],
            body: Data(
                "Unauthorized: sign in through this server (OAuth 2.1; its metadata is at /.well-known/oauth-authorization-server)\n"
                    .utf8))
    }

    /// The token of `Bearer <token>`: one word of printable ASCII, at most 512 characters; nil for anything else.
    package static func bearer(_ authorization: String?) -> String? { TokenCheck.bearer(authorization) }

    /// An `Origin` is this server's own (its public URL's, or its address's on loopback) or one it was told to accept.
    func allows(_ origin: String) -> Bool {
        let origin = origin.lowercased()
        var own = [self.origin.lowercased()]
        if settings.publicURL == nil, let port = server.withLock({ $0?.port }) {
            own += ["http://localhost:\(port)", "http://127.0.0.1:\(port)"]
        }
        return own.contains(origin) || settings.origins.map { $0.lowercased() }.contains(origin)
    }

    /// The path as the metrics name it: the label of its route, everything else as one.
    static func known(_ path: String) -> String {
        if path.hasPrefix("/approve/") { return "/approve" }
        return routes.first { $0.path == path }?.label ?? "other"
    }

    static func status(of action: HTTPAction) -> Int {
        switch action {
        case .respond(let status, _, _), .stream(let status, _, _), .truncate(let status, _, _),
            .resetMidBody(let status, _, _), .stallBody(_, let status, _, _):
            status
        case .close, .reset, .stall: 0
        }
    }
}

/// One request as the log says it: one JSON line, with no token and no record's content.
struct LogRecord {
    var method: String
    var path: String
    var status = 0
    var seconds = 0.0
    var tool: String?
    var user: String?
    /// The client the person signed in through (its id, never a token).
    var client: String?

    func line(at time: Date) -> String {
        var members: [(String, JSONValue)] = [
            ("time", .string(ISOInstant.secondsText(time))), ("method", .string(String(method.prefix(16)))),
            ("path", .string(String(path.prefix(200)))), ("status", .number(Double(status))),
            ("ms", .number((seconds * 1000).rounded())),
        ]
        if let tool { members.append(("tool", .string(String(tool.prefix(128))))) }
        if let user { members.append(("user", .string(user))) }
        if let client { members.append(("client", .string(String(client.prefix(200))))) }
        return JSONValue.object(members).serialized()
    }
}
