#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerMCP
import TrackerModel
import TrackerNetwork
import TrackerOperations
import TrackerServe
import TrackerSystem

/// `tracker serve`: the `mcp` tools over HTTP (the Model Context Protocol's Streamable HTTP), for assistants that
/// cannot start a process; each person comes with their own Airtable token.
struct Serve: Command {
    static let spec = CommandSpec(
        name: "serve", summary: "Serve the base's tools over HTTP to a team's assistants (MCP, Streamable HTTP).",
        usage: [
            "tracker serve [--listen ADDR:PORT] [--public-url URL] [--origin ORIGIN]... [--read-only] [--root DIR]"
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
        ],
        examples: [
            "tracker serve", "tracker serve --read-only --root ~/Work/mock-ups",
            "tracker serve --public-url https://tracker.example.com",
        ],
        notes: [
            "POST /mcp speaks both protocol eras (initialize with Mcp-Session-Id, and 2026-07-28's stateless _meta).",
            "Every request needs Authorization: Bearer <the person's own Airtable personal access token>: writes go out",
            "under it, so Airtable's history names the person. A token is checked against the base once and the verdict",
            "kept a minute; it is never written to Redis, a file or the log. Without one: 401, and the metadata at",
            "/.well-known/oauth-protected-resource. GET /healthz and GET /metrics (Prometheus) for a service manager;",
            "one JSON line a request on stderr. TLS is your reverse proxy's. SIGTERM: calls in flight get 10 s, then",
            "it exits 0; SIGHUP reads the configuration again.",
        ])

    var listen: String?
    var publicURL: String?
    var origins: [String] = []
    var readOnly = false
    var root: String?

    func run(_ runner: Runner) async throws { try await runner.serve(self) }
}

extension Serve {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
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
