#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerOperations
import TrackerSystem
import TrackerTeam
import TrackerMCP

/// `tracker serve` from its flags to its end: the face, its sign-in and grants' store, Airtable's doorbell, the
/// health and the month's figures, all from the one workspace the executable hands it. The executable only parses
/// the flags and the configuration's surroundings; what serve is lives here.
package struct ServeLaunch: Sendable {
    /// What the flags and the configuration asked for.
    package struct Request: Sendable {
        package var listen: String?
        package var publicURL: String?
        package var origins: [String] = []
        package var readOnly = false
        package init() {}
    }

    package var request: Request
    /// The face's one workspace: its sessions, its clients, the grants' store and the health all come from it.
    package var workspace: Workspace
    package var toolHost: ToolHost
    package var root: FileRoot
    package var copies: BaseCopies?
    /// Where the doorbell's key and the sign-ins' file are kept.
    package var stateDirectory: CacheDirectory?
    package var interruption: Interruption
    /// The face's log and its messages (stderr).
    package var standardError: @Sendable (String) -> Void
    /// SIGHUP: the configuration read again by the next call.
    package var forgetConfiguration: @Sendable () -> Void

    package init(
        request: Request, workspace: Workspace, toolHost: ToolHost, root: FileRoot, copies: BaseCopies?,
        stateDirectory: CacheDirectory?, interruption: Interruption,
        standardError: @escaping @Sendable (String) -> Void, forgetConfiguration: @escaping @Sendable () -> Void
    ) {
        (self.request, self.workspace, self.toolHost, self.root) = (request, workspace, toolHost, root)
        (self.copies, self.stateDirectory, self.interruption) = (copies, stateDirectory, interruption)
        (self.standardError, self.forgetConfiguration) = (standardError, forgetConfiguration)
    }

    /// Where it listens and how it is reached, checked: people's sign-ins and tokens cross the public URL, so it is
    /// https (http only on loopback), and beyond loopback a public URL is needed.
    package static func settings(_ request: Request, _ configuration: Configuration) throws(AppError)
        -> ServeFace.Settings
    {
        var settings = ServeFace.Settings()
        let listen = request.listen ?? configuration.serve.listen ?? "127.0.0.1:8765"
        guard let (host, port) = ServeSettings.address(listen) else {
            throw AppError.usage("--listen \(listen) is not ADDR:PORT", command: "serve")
        }
        (settings.host, settings.port) = (host, port)
        // Said without a trailing slash, once: the origin, the metadata and the pings' address are made from it.
        settings.publicURL = (request.publicURL ?? configuration.serve.publicURL).map {
            String($0.reversed().drop { $0 == "/" }.reversed())
        }
        if let publicURL = settings.publicURL, publicURL.lowercased().hasPrefix("http://"),
            !SignInCheck.isLoopback(publicURL)
        {
            throw AppError.usage(
                "serve's public URL \(publicURL.prefix(100)) must be https:// (http:// only for a loopback address): people sign in and send their tokens through it",
                command: "serve")
        }
        settings.origins = request.origins + configuration.serve.origins
        guard host.hasPrefix("127.") || settings.publicURL != nil else {
            throw AppError.usage(
                "serve listens on \(host) only with --public-url (the https:// address your reverse proxy gives it)",
                command: "serve")
        }
        return settings
    }

    /// Serves until SIGTERM or SIGINT: then new requests are refused, calls in flight get 10 s, the team's lease goes.
    package func run() async throws {
        let configuration = try workspace.loadConfiguration()
        let settings = try Self.settings(request, configuration)
        let tools = MCPTool.all.filter { !request.readOnly || $0.isReadOnly }
        let (workspace, copies, standardError) = (workspace, copies, standardError)
        let signIn = try SignIn.forServe(
            configuration: configuration, client: workspace.makeClient(configuration: configuration),
            store: try SignIn.store(for: configuration, in: workspace, directory: stateDirectory),
            publicURL: settings.publicURL, readOnly: request.readOnly)
        if let why = signIn.settings.unavailable { standardError("tracker: nobody can sign in to serve: \(why)\n") }
        // A write held for approval is approved on serve's own page, by the person signed in there.
        var toolHost = toolHost
        toolHost.approvalPage = { signIn.settings.issuer + "/approve/" + $0 }
        let server = MCPServer(tools: tools, runner: ToolRunner(host: toolHost, root: root))
        var host = ServeFace.Host(signIn: signIn, health: health(), log: { standardError($0 + "\n") })
        host.approvals = request.readOnly ? nil : Self.approvalActions(toolHost)
        host.figures = { Self.monthFigures(workspace) }
        let keeper = settings.publicURL.map { doorbell($0, configuration, &host) }
        let face = ServeFace(settings: settings, host: host, mcp: MCPOverHTTP(server: server))
        let bound: Int
        do {
            bound = try face.start()
        } catch {
            let reason = (error as? POSIXError).map { POSIX.describe($0.code.rawValue) } ?? "\(error)"
            throw AppError.cannotListen(address: "\(settings.host):\(settings.port)", reason: reason.lowercased())
        }
        // The issuer is the public URL, or on loopback the address just bound.
        if settings.publicURL == nil { signIn.setIssuer("http://\(settings.host):\(bound)") }
        standardError(
            "tracker: serving \(tools.count) tools over MCP at http://\(settings.host):\(bound)/mcp"
                + (settings.publicURL.map { " (reached at \($0)/mcp)" } ?? "")
                + ": base \(configuration.baseID), table \"\(configuration.table)\""
                + (root.path.map { "; files inside \($0)" } ?? "; file tools off (\(root.refusal ?? ""))") + "\n")
        let forget = forgetConfiguration
        interruption.whenReloadRequested {
            forget()
            standardError("tracker: reading the configuration again (SIGHUP)\n")
        }
        let keeping = keeper.map { keeper in
            Task { await RequestPurpose.$current.withValue(.background) { await keeper.keep() } }
        }
        interruption.stopBetweenRequests(notice: nil)
        if let copies { interruption.beforeEnding { copies.finishAtExit() } }
        let stopped = Locked<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { continuation in
            stopped.withLock { $0 = continuation }
            interruption.whenStopRequested { stopped.withLock { $0 }?.resume() }
        }
        standardError("tracker: stopping: calls in flight get 10 s\n")
        await face.drain(within: 10)
        keeping?.cancel()
        if let team = keeper?.team {
            try? TeamCopyStore.doorbell(owner: configuration.budgetOwner, on: team.connection, liveFor: 0)
        }
        await copies?.finish()
    }

    /// The approval page's work, each the operation every face runs, in a session of the person signed in (their
    /// own Airtable token; the journal names them).
    static func approvalActions(_ toolHost: ToolHost) -> ApprovalActions {
        @Sendable func opener(_ person: Person) -> SessionOpener {
            var scope = Workspace.Scope(
                today: CalendarDate(toolHost.now(), in: toolHost.timeZone), personToken: person.token)
            scope.userID = person.userID
            return toolHost.opener(scope)
        }
        return ApprovalActions(
            look: { id, person in try await opener(person).perform(ApprovalStatus(approvalID: id)) },
            approve: { id, person in
                try await opener(person).perform(Approve(approvalID: id, confirmed: true))
            },
            reject: { id, person in try await opener(person).perform(Reject(approvalID: id)) })
    }

    /// With a public URL, Airtable pings the server when the base changes, and the copy is refreshed on pings.
    private func doorbell(_ publicURL: String, _ configuration: Configuration, _ host: inout ServeFace.Host)
        -> DoorbellKeeper
    {
        let (copies, standardError) = (copies, standardError)
        var kept = DoorbellKeeper(
            client: workspace.makeClient(configuration: configuration),
            notificationURL: publicURL + "/airtable/ping", state: stateDirectory, pings: host.pings,
            team: configuration.teamCopy ? workspace.coordination(configuration) as? TeamCoordination : nil,
            owner: configuration.budgetOwner, say: { standardError("tracker: \($0)\n") })
        // Without the team's copy, serve's own copies freshen on pings (and hourly) instead of at every call.
        if !configuration.teamCopy { kept.armed = { copies?.turnOnPings($0) } }
        let ringing = kept
        host.pinged = {
            ringing.ring()
            copies?.pinged()
        }
        return kept
    }

    /// Why the server cannot vouch for what it serves: its own token refused by Airtable (checked as a person's is,
    /// a minute's verdict, read again after a SIGHUP), or a copy that cannot vouch for itself.
    private func health() -> @Sendable () async -> String? {
        let (workspace, copies) = (workspace, copies)
        let ownToken = TokenCheck { token in await Self.check(token, in: workspace) }
        return {
            guard let own = try? workspace.loadConfiguration().token else {
                return "its configuration could not be read"
            }
            switch await ownToken.verdict(on: "Bearer " + own) {
            case .person: break
            case .refused(let why), .unavailable(let why): return "Airtable refuses the server's token (\(why))"
            }
            return await copies?.doubts().first
        }
    }

    /// Whether `token` is a person's that reads the base: who it is (`whoami`), then one record read with it.
    static func check(_ token: String, in workspace: Workspace) async -> TokenCheck.Verdict {
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
    static func monthFigures(_ workspace: Workspace) -> [String] {
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
