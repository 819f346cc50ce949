#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerMCP
import TrackerOperations
import TrackerServe
import TrackerSystem

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
    /// Starts serve's face with the surroundings every call shares and its one workspace; it serves until SIGTERM.
    func serve(_ options: Serve) async throws {
        var prepared = serverContext()
        let scratch = keepCacheSomewhere(&prepared)
        let served = prepared
        defer { if let scratch { _ = POSIX.runQuietly(["rm", "-rf", scratch]) } }
        let workspace = served.workspace(for: invocation, today: today)
        let configuration = try workspace.loadConfiguration()
        var request = ServeLaunch.Request()
        (request.listen, request.publicURL, request.origins) = (options.listen, options.publicURL, options.origins)
        request.readOnly = options.readOnly
        let root = FileRoot.choose(
            (options.root ?? configuration.serve.root).map { Path.absolute($0, from: context.currentDirectory) }
                ?? context.currentDirectory,
            home: context.environment["HOME"])
        let launch = ServeLaunch(
            request: request, workspace: workspace, toolHost: toolHost(served, workspace), root: root,
            copies: served.copies, stateDirectory: served.stateDirectory ?? served.cacheDirectory,
            interruption: context.interruption, standardError: context.output.rawStandardError,
            forgetConfiguration: { served.rememberedConfiguration?.withLock { $0 = nil } })
        try await launch.run()
    }
}
