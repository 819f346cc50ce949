#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel
import TrackerStdio
import TrackerMCP
import TrackerOperations
import TrackerSystem

/// `tracker mcp`: the base's tools for an AI assistant, over the Model Context Protocol on stdin and stdout.
struct MCP: Command {
    static let spec = CommandSpec(
        name: "mcp", facts: [.staysOpen],
        summary: "Serve the base's tools to an AI assistant (Model Context Protocol, stdio).",
        usage: ["tracker mcp [--profile NAME] [--read-only] [--root DIR]"],
        flags: [
            FlagSpec(name: "--read-only", help: "offer only the tools that read (no writes, uploads or downloads)"),
            FlagSpec(
                name: "--root", value: "DIR",
                help: "the only directory attach_file reads and download_files writes (default: where it starts)"),
        ],
        examples: [
            "claude mcp add tracker -- tracker mcp", "claude mcp add tracker -- tracker mcp --root ~/Work/mock-ups",
            "tracker mcp --read-only", "tracker demo -- mcp",
        ],
        notes: [
            "JSON-RPC 2.0 on stdin and stdout, one message a line: stdout carries protocol messages and nothing else;",
            "anything for a person goes to stderr. Both protocol eras are served (initialize, 2025-11-25 and before;",
            "server/discover and per-request _meta, 2026-07-28). Each tool is its command, run the same way: the same",
            "configuration, pacing shared with every tracker process, checks and exactly-once creates. Files are read",
            "and written only inside --root, never through a hidden path or a link out; / and your home are no root.",
            "End of stdin, SIGTERM or SIGINT: calls in flight get 1.5 s to finish, then it exits 0. With \"teamCopy\"",
            "the servers of a team share one copy of the tables in the team's Redis (records stored there; opt in).",
        ])

    var readOnly = false
    var root: String?

    func run(_ runner: Runner) async throws { try await runner.serveMCP(self) }
}

extension MCP {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(readOnly: scanned.has("--read-only"), root: try scanned.nonEmpty("--root"))
    }
}

extension Runner {
    /// Serves until stdin ends or a signal asks it to stop; never ends on a failed call.
    fileprivate func serveMCP(_ options: MCP) async throws {
        let root = FileRoot.choose(
            options.root.map { Path.absolute($0, from: context.currentDirectory) }
                ?? context.currentDirectory,
            home: context.environment["HOME"])
        if options.root != nil, root.path == nil, FileRoot.realPath(options.root!) == nil {
            throw AppError.usage("--root \(options.root!) is not a directory", command: "mcp")
        }
        let protocolDescriptor = MessageWriter.takeStandardOutput()
        // Ctrl-C and SIGTERM end the server as the end of input does (below).
        context.interruption.stopBetweenRequests(notice: nil)
        var served = serverContext()
        let scratch = keepCacheSomewhere(&served)
        defer { if let scratch { _ = POSIX.runQuietly(["rm", "-rf", scratch]) } }
        let (events, input) = AsyncStream.makeStream(of: InputEvent.self)
        let writer = MessageWriter(
            descriptor: protocolDescriptor,
            secret: { [served] in served.rememberedConfiguration?.withLock { $0?.token } },
            closed: { input.yield(.end) })
        // Read once now: a token command runs once for the server's life, and a broken setup is said at once.
        let workspace = served.workspace(for: invocation, today: today)
        let profile: String
        do {
            let configuration = try workspace.loadConfiguration()
            profile = "base \(configuration.baseID), table \"\(configuration.table)\""
        } catch let error as AppError {
            profile = "no base yet (\(error.message)); every tool will say so"
        }
        let tools = MCPTool.all.filter { !options.readOnly || $0.isReadOnly }
        let server = StdioFraming(
            server: MCPServer(tools: tools, runner: ToolRunner(host: toolHost(served, workspace), root: root)),
            writer: writer)
        output.standardError(
            "tracker: serving \(tools.count) tools over MCP on stdin and stdout: \(profile)"
                + (root.path.map { "; files inside \($0)" } ?? "; file tools off (\(root.refusal ?? ""))") + "\n")
        // SIGTERM, SIGINT or SIGHUP: the end of input, once; a second one ends tracker at once.
        context.interruption.whenStopRequested { input.yield(.end) }
        // A second one: the team's lease let go before tracker ends, as at the end of input.
        if let copies = served.copies { context.interruption.beforeEnding { copies.finishAtExit() } }
        InputLines.read(STDIN_FILENO, into: input)
        await server.serve(events)
        await served.copies?.finish()
    }

    /// Without a cache directory (no HOME, as some apps and service managers start servers) the schema and names are
    /// still kept between calls, in a private directory for the server's life: its path, to remove at the end.
    func keepCacheSomewhere(_ served: inout Context) -> String? {
        guard served.cacheDirectory == nil else { return nil }
        var template = Array((context.temporaryDirectory + "/tracker-mcp-XXXXXX").utf8CString)
        let scratch = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        served.cacheDirectory = scratch.map(CacheDirectory.init(path:))
        return scratch
    }

    /// What the server's tools are given: sessions opened as the command line opens them in the server's
    /// surroundings (each call's Ctrl-C its own), the clock, the uploads' checks, the copies' turns, the token.
    func toolHost(_ served: Context, _ workspace: Workspace) -> ToolHost {
        // The face's one workspace for the server's life; each call brings its day and who asks (a call's
        // interruption is the tool runner's, which cleans up after a cancelled call).
        var host = ToolHost(
            opener: { workspace.opener(scope: $0) }, now: served.now, timeZone: served.timeZone,
            checkUploads: { paths, command in
                try UploadChecks.files(paths, command: command, relativeTo: served.currentDirectory)
            }, beginTurn: { served.copies?.beginTurn(observing: $0) },
            token: { served.rememberedConfiguration?.withLock { $0?.token } }, version: Version.current)
        host.looked = { await served.copies?.looked() }
        return host
    }

    /// The surroundings every call shares: one transport (its connections kept warm), the configuration read once,
    /// and no terminal: nothing prompts, opens an editor or a browser, or reads stdin (the protocol's).
    func serverContext() -> Context {
        var served = context
        let transport = context.makeTransport(invocation.globals.timeoutSeconds ?? 30)
        served.makeTransport = { _ in transport }
        served.rememberedConfiguration = Locked(nil)
        // The tables are read whole once and then only what changed (docs/contract.md "What changed, not the whole
        // table").
        served.copies = BaseCopies()
        served.isStdinTerminal = false
        served.readLine = { nil }
        served.readStandardInput = { Data() }
        served.readSecret = { _ in nil }
        served.openInBrowser = { _ in false }
        served.runEditor = { _, _ in nil }
        let standardError = context.output.rawStandardError
        served.output = Output(
            standardOutput: { text in standardError(text) }, standardError: standardError)
        return served
    }
}
