#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerTools
import TrackerModel
import TrackerNetwork
import TrackerOperations
import TrackerServe
import TrackerSystem
import TrackerTeam

/// `tracker serve`: the `mcp` tools over HTTP (the Model Context Protocol's Streamable HTTP), for assistants that
/// cannot start a process; each person signs in through serve and acts with their own Airtable grant.
struct Serve: Command {
    static let spec = CommandSpec(
        name: "serve", facts: [.staysOpen],
        summary: "Serve the base's tools over HTTP to a team's assistants (MCP, Streamable HTTP).",
        usage: [
            "tracker serve [--listen ADDR:PORT] [--public-url URL] [--origin ORIGIN]... [--read-only] [--root DIR]",
            "tracker serve grants [--json] [--revoke ID | --person EMAIL|usrID]",
        ],
        flags: [
            FlagSpec(name: "--listen", value: "ADDR:PORT", help: "where to listen (default 127.0.0.1:8765)"),
            FlagSpec(
                name: "--public-url", value: "URL",
                help: "where clients reach it through your reverse proxy (needed beyond loopback)"),
            FlagSpec(
                name: "--origin", value: "ORIGIN", repeatable: true,
                help: "a browser origin allowed to call it, besides its own (repeat for more)"),
            FlagSpec(name: "--read-only", help: "offer only the tools that read (no writes, uploads or downloads)"),
            FlagSpec(name: "--root", value: "DIR", help: "the only directory the file tools use, on this machine"),
            FlagSpec(name: "--json", help: "grants: print the grants as a JSON array"),
            FlagSpec(name: "--revoke", value: "ID", help: "grants: revoke the grant with this id, on every serve"),
            FlagSpec(name: "--person", value: "EMAIL|usrID", help: "grants: revoke every grant of this person"),
        ],
        examples: [
            "tracker serve", "tracker serve --read-only --root ~/Work/mock-ups",
            "tracker serve --public-url https://tracker.example.com", "tracker serve grants",
            "tracker serve grants --person alice@example.com",
        ],
        notes: [
            "POST /mcp speaks both protocol eras (initialize with Mcp-Session-Id, and 2026-07-28's stateless _meta).",
            "People sign in through serve (OAuth 2.1: its metadata is at /.well-known/oauth-authorization-server),",
            "which sends them on to Airtable's own sign-in (\"serve\": {\"airtableOAuth\": {...}} in the secrets file);",
            "each person's calls then act with their own Airtable grant, so Airtable's history names them. Only serve's",
            "own tokens are taken (an Airtable token is 401). GET /healthz and GET /metrics (Prometheus) for a service",
            "manager;",
            "one JSON line a request on stderr. TLS is your reverse proxy's. SIGTERM: calls in flight get 10 s, then",
            "it exits 0; SIGHUP reads the configuration again.",
        ])

    var listen: String?
    var publicURL: String?
    var origins: [String] = []
    var readOnly = false
    var root: String?
    /// `serve grants`: the people signed in, for the operator (and `--revoke`/`--person` to end grants).
    var grants = false
    var json = false
    var revoke: String?
    var person: String?

    func run(_ runner: Runner) async throws {
        if grants { try await runner.serveGrants(self) } else { try await runner.serve(self) }
    }
}

extension Serve {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        if scanned.positionals == ["grants"] {
            try scanned.rejectTogether("--revoke", "--person")
            for flag in ["--listen", "--public-url", "--origin", "--read-only", "--root"] where scanned.has(flag) {
                throw AppError.usage("serve grants takes no \(flag)", command: "serve")
            }
            self.init(
                grants: true, json: scanned.has("--json"), revoke: try scanned.nonEmpty("--revoke"),
                person: try scanned.nonEmpty("--person"))
            return
        }
        try scanned.rejectPositionals()
        for flag in ["--json", "--revoke", "--person"] where scanned.has(flag) {
            throw AppError.usage("\(flag) goes with serve grants", command: "serve")
        }
        if let listen = scanned.last("--listen"), ServeSettings.address(listen) == nil {
            throw AppError.usage(
                "--listen must be an IPv4 address and a port, such as 127.0.0.1:8765 (not \"\(listen.prefix(60))\")",
                command: "serve")
        }
        if let url = scanned.last("--public-url"), !ServeSettings.isPublicURL(url) {
            throw AppError.usage(
                "--public-url must be an https:// (or http://) address, such as https://tracker.example.com",
                command: "serve")
        }
        for origin in scanned.all("--origin") where !ServeSettings.isPublicURL(origin) {
            throw AppError.usage(
                "--origin must be an origin such as https://claude.ai (not \"\(origin.prefix(60))\")", command: "serve")
        }
        self.init(
            listen: scanned.last("--listen"), publicURL: scanned.last("--public-url"), origins: scanned.all("--origin"),
            readOnly: scanned.has("--read-only"), root: try scanned.nonEmpty("--root"))
    }
}

extension Runner {
    /// Serves until SIGTERM or SIGINT: then new requests are refused, calls in flight get 10 s, the team's lease goes.
    func serve(_ options: Serve) async throws {
        var prepared = serverContext()
        let scratch = keepCacheSomewhere(&prepared)
        let served = prepared
        defer { if let scratch { _ = POSIX.runQuietly(["rm", "-rf", scratch]) } }
        let workspace = served.workspace(for: invocation, today: today)
        let configuration = try workspace.loadConfiguration()
        var settings = ServeFace.Settings()
        let listen = options.listen ?? configuration.serve.listen ?? "127.0.0.1:8765"
        guard let (host, port) = ServeSettings.address(listen) else {
            throw AppError.usage("--listen \(listen) is not ADDR:PORT", command: "serve")
        }
        (settings.host, settings.port) = (host, port)
        // Said without a trailing slash, once: the origin, the metadata and the pings' address are made from it.
        settings.publicURL = (options.publicURL ?? configuration.serve.publicURL).map {
            String($0.reversed().drop { $0 == "/" }.reversed())
        }
        // People's sign-ins and tokens cross the public URL: https, or http only on this machine's loopback.
        if let publicURL = settings.publicURL, publicURL.lowercased().hasPrefix("http://"),
            !SignInCheck.isLoopback(publicURL)
        {
            throw AppError.usage(
                "serve's public URL \(publicURL.prefix(100)) must be https:// (http:// only for a loopback address): people sign in and send their tokens through it",
                command: "serve")
        }
        settings.origins = options.origins + configuration.serve.origins
        // Beyond loopback, clients reach it through a proxy that speaks TLS: the deployment says where.
        guard host.hasPrefix("127.") || settings.publicURL != nil else {
            throw AppError.usage(
                "serve listens on \(host) only with --public-url (the https:// address your reverse proxy gives it)",
                command: "serve")
        }
        let root = FileRoot.choose(
            (options.root ?? configuration.serve.root).map { Path.absolute($0, from: context.currentDirectory) }
                ?? context.currentDirectory,
            home: context.environment["HOME"])
        let tools = MCPTool.all.filter { !options.readOnly || $0.isReadOnly }
        let server = MCPServer(tools: tools, runner: ToolRunner(host: toolHost(served), root: root))
        // The server's own token, checked quietly for the health (a refusal is the health's to say, once).
        var quiet = served
        quiet.output = Output(standardOutput: { _ in }, standardError: { _ in }, isStdoutTerminal: false)
        let checking = quiet.workspace(for: invocation, today: today)
        let ownToken = TokenCheck { token in await Self.check(token, in: checking) }
        let standardError = context.output.rawStandardError
        // With the team's Redis, grants live there: every serve behind the proxy signs the same people in.
        let sharedStore = try signInStore(configuration, workspace)
        let signIn = try SignIn.forServe(
            configuration: configuration, client: workspace.makeClient(configuration: configuration),
            store: sharedStore,
            publicURL: settings.publicURL,
            readOnly: options.readOnly)
        if let why = signIn.settings.unavailable { standardError("tracker: nobody can sign in to serve: \(why)\n") }
        var faceHost = ServeFace.Host(
            signIn: signIn,
            health: {
                // The server's own token, checked as a person's is (a minute's verdict): Airtable still lets it in.
                // Read again after a SIGHUP, so the health says at once what the new one is worth.
                guard let own = try? workspace.loadConfiguration().token else {
                    return "its configuration could not be read"
                }
                switch await ownToken.verdict(on: "Bearer " + own) {
                case .person: break
                case .refused(let why), .unavailable(let why): return "Airtable refuses the server's token (\(why))"
                }
                // The copy the calls read: one that cannot vouch for itself is said (calls then read Airtable).
                return await served.copies?.doubts().first
            }, log: { standardError($0 + "\n") })
        faceHost.figures = { Self.monthFigures(workspace) }
        // With a public URL, Airtable pings the server when the base changes, and the copy is refreshed on pings.
        var keeper: DoorbellKeeper?
        if let publicURL = settings.publicURL {
            var kept = DoorbellKeeper(
                client: workspace.makeClient(configuration: configuration),
                notificationURL: publicURL + "/airtable/ping",
                state: served.stateDirectory ?? served.cacheDirectory, pings: faceHost.pings,
                team: configuration.teamCopy ? workspace.coordination(configuration) as? TeamCoordination : nil,
                owner: configuration.budgetOwner, say: { standardError("tracker: \($0)\n") })
            // Without the team's copy, serve's own copies freshen on pings (and hourly) instead of at every call.
            if !configuration.teamCopy { kept.armed = { served.copies?.turnOnPings($0) } }
            let ringing = kept
            faceHost.pinged = {
                ringing.ring()
                served.copies?.pinged()
            }
            keeper = kept
        }
        let face = ServeFace(settings: settings, host: faceHost, mcp: MCPOverHTTP(server: server))
        let bound: Int
        do {
            bound = try face.start()
        } catch {
            let reason = (error as? POSIXError).map { POSIX.describe($0.code.rawValue) } ?? "\(error)"
            throw AppError.cannotListen(address: "\(host):\(port)", reason: reason.lowercased())
        }
        // The issuer is the public URL, or on loopback the address just bound.
        if settings.publicURL == nil { signIn.setIssuer("http://\(host):\(bound)") }
        output.standardError(
            "tracker: serving \(tools.count) tools over MCP at http://\(host):\(bound)/mcp"
                + (settings.publicURL.map { " (reached at \($0)/mcp)" } ?? "")
                + ": base \(configuration.baseID), table \"\(configuration.table)\""
                + (root.path.map { "; files inside \($0)" } ?? "; file tools off (\(root.refusal ?? ""))") + "\n")
        // SIGHUP: the configuration is read again by the next call (where it listens needs a restart).
        context.interruption.whenReloadRequested {
            served.rememberedConfiguration?.withLock { $0 = nil }
            standardError("tracker: reading the configuration again (SIGHUP)\n")
        }
        let keeping = keeper.map { keeper in
            Task { await RequestPurpose.$current.withValue(.background) { await keeper.keep() } }
        }
        context.interruption.stopBetweenRequests(notice: nil)
        if let copies = served.copies { context.interruption.beforeEnding { copies.finishAtExit() } }
        let stopped = Locked<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { continuation in
            stopped.withLock { $0 = continuation }
            context.interruption.whenStopRequested { stopped.withLock { $0 }?.resume() }
        }
        standardError("tracker: stopping: calls in flight get 10 s\n")
        await face.drain(within: 10)
        keeping?.cancel()
        if let team = keeper?.team {
            try? TeamCopyStore.doorbell(owner: configuration.budgetOwner, on: team.connection, liveFor: 0)
        }
        await served.copies?.finish()
    }

    /// Whether `token` is a person's that reads the base: who it is (`whoami`), then one record read with it.
    fileprivate static func check(_ token: String, in workspace: Workspace) async -> TokenCheck.Verdict {
        guard let configuration = try? workspace.configuration(for: Workspace.Scope(personToken: token)) else {
            return .unavailable("the server's configuration could not be read")
        }
        let client = workspace.makeClient(configuration: configuration)
        func verdict(_ error: AppError, _ doing: String) -> TokenCheck.Verdict {
            let why = doing + StandardErrorText.safe(error.message, concealing: [token])
            return [.temporaryFailure, .unavailable].contains(error.exitCode) ? .unavailable(why) : .refused(why)
        }
        let user: String
        switch await client.whoami() {
        case .failure(let error): return verdict(error, "")
        case .success(let who):
            guard let id = who.id else { return .refused("Airtable did not say whose token it is") }
            user = id
        }
        if case .failure(let error) = await client.probeTable() {
            return verdict(error, "it does not read the base: ")
        }
        return .person(Person(token: token, userID: user))
    }

    /// The month's requests for `/metrics`, as `tracker usage` counts them.
    fileprivate static func monthFigures(_ workspace: Workspace) -> [String] {
        guard let configuration = try? workspace.loadConfiguration(),
            let month = workspace.usageLedger(configuration).thisMonth()
        else { return [] }
        var lines = [
            "# HELP tracker_airtable_month_requests Requests sent to the base this month (UTC), by every tracker counted.",
            "# TYPE tracker_airtable_month_requests gauge",
        ]
        lines += RequestUse.allCases.map {
            "tracker_airtable_month_requests{use=\"\($0.rawValue)\"} \(month.requests($0))"
        }
        return lines
    }
}
