#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

/// Runs a tool as its command's operation: the arguments become the command's named arguments, given meaning by the
/// command's own rules, and the operation runs in a session opened as the command line opens one, in a context whose
/// streams the server holds (no prompts, no terminal, stdin never read); its typed outcome is encoded here.
package struct ToolRunner: Sendable {
    /// What the executable gives every call: sessions, the clock, the uploads' checks, the token to conceal.
    package let host: ToolHost
    package let root: FileRoot

    /// Each value given.
    package init(host: ToolHost, root: FileRoot) {
        self.host = host
        self.root = root
    }

    /// The result of `tools/call` (without the era's own members): the command's stable JSON, or its failure.
    package func call(_ tool: MCPTool, arguments: JSONValue?, call: Call, progress: ProgressSink?) async -> JSONValue {
        var heard: (@Sendable (Int) -> Void)? = nil
        if let progress { heard = { progress.report(records: $0) } }
        // A call is someone looking: a team's copy that slowed while nobody did is brought up to date first.
        await host.looked()
        host.beginTurn(heard)
        do {
            let scope = scope(of: tool, call: call)
            // 2026-07-28: the call again, with the person's answer to the approval it asked for.
            if let state = call.asking?.requestState, JournalEntry.isApprovalID(state) {
                return try await answered(state, tool: tool, call: call, scope: scope)
            }
            let plan = try ToolArguments(tool: tool, root: root).plan(arguments)
            switch try await run(tool, plan, scope: scope, progress: progress) {
            case .result(let structured): return Self.success(structured)
            case .waiting(let entry): return try await waiting(entry, call: call, scope: scope)
            }
        } catch {
            return Self.failure(error, concealing: [host.token(), call.person?.token].compactMap { $0 })
        }
    }

    /// What a tool's run came to: its result, or a write held for approval (nothing written).
    enum Ran {
        case result(JSONValue)
        case waiting(JournalEntry)
    }

    /// The call's day, who asks and its Ctrl-C: the one scope its sessions are opened in; and the journal's who and
    /// how: the person serve signed in and their client, and the tool.
    private func scope(of tool: MCPTool, call: Call) -> Workspace.Scope {
        let today = CalendarDate(host.now(), in: host.timeZone)
        var scope = Workspace.Scope(today: today, personToken: call.person?.token, interruption: call.interruption)
        (scope.userID, scope.client, scope.tool) = (
            call.person?.userID, call.person?.clientID ?? call.client, tool.name
        )
        return scope
    }

    /// The tool's own run, given the call; anything but an `AppError` it throws is the server's fault, said as one.
    private func run(_ tool: MCPTool, _ plan: ToolArguments.Plan, scope: Workspace.Scope, progress: ProgressSink?)
        async throws(AppError) -> Ran
    {
        // A write's call: what the approval policy holds is planned, not sent, and answered as the approval it waits for.
        var scope = scope
        let planned = tool.isReadOnly ? nil : PlannedWrites()
        scope.planned = planned
        let today = scope.today ?? CalendarDate(host.now(), in: host.timeZone)
        let call = ToolCall(tool: tool, plan: plan, today: today, scope: scope, progress: progress, host: host)
        do {
            let result = try await tool.run(call)
            if let waiting = planned?.entry { return .waiting(waiting) }
            return .result(result)
        } catch AppError.writePlanned where planned?.entry != nil {
            return .waiting(planned!.entry!)
        } catch let error as AppError {
            throw error
        } catch {
            throw AppError.output("\(error)")
        }
    }

    /// The answer to a write held for approval: not an error, nothing written; the diff, the approval's id, and
    /// under serve the page the person approves it on.
    func approvalNeeded(_ entry: JournalEntry) -> JSONValue {
        let object = entry.approvalObject(
            at: host.now().timeIntervalSince1970, url: host.approvalPage.map { $0(entry.id) })
        guard case .object(var members) = object else { return object }
        members[1] = ("status", .string("approval_needed"))
        members.insert(("approval", .string(entry.id)), at: 1)
        members.append(
            (
                "message",
                .string(
                    "Nothing was written yet: this write waits for the person's approval"
                        + (host.approvalPage != nil ? " at approvalUrl" : " ('tracker approve \(entry.id)')")
                        + " for 10 minutes. Tell them, then ask approval_status; do not call the tool again.")
            ))
        return .object(members)
    }

    /// A digest with each of its lists (at any depth) cut to `limit` items and given as `{items, total, truncated}`.
    package static func bounded(_ value: JSONValue, limit: Int) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { ($0.0, bounded($0.1, limit: limit)) })
        case .array(let items):
            // A digest's lists are lists of records (empty ones too): the records themselves are kept whole.
            return .object([
                ("items", .array(Array(items.prefix(limit)))), ("total", .number(Double(items.count))),
                ("truncated", .bool(items.count > limit)),
            ])
        default:
            return value
        }
    }

    package static func wrapped(_ noun: String, _ items: [JSONValue], total: Int) -> JSONValue {
        .object([(noun, .array(items)), ("total", .number(Double(total))), ("truncated", .bool(total > items.count))])
    }

    /// An outcome a tool never asks for (a dry run's plan, a comment not sent): a failure of the server, said as one.
    static func nothingToGive(_ name: String) -> AppError {
        AppError.output("\(name) had no record to give back (tracker's own fault; nothing was written twice)")
    }

    /// A tool's success: the structured result, and the same JSON as text for clients that read only text.
    package static func success(_ structured: JSONValue) -> JSONValue {
        .object([
            ("content", .array([.object([("type", .string("text")), ("text", .string(structured.serialized()))])])),
            ("structuredContent", structured), ("isError", .bool(false)),
        ])
    }

    /// A tool's failure as a result the model reads: the command's line and hint, and its exit code.
    package static func failure(_ error: AppError, concealing secrets: [String]) -> JSONValue {
        let message = StandardErrorText.safe(error.message, concealing: secrets)
        let hint: String? =
            if case .usage = error { "Check the arguments against the tool's inputSchema (tools/list)." } else {
                error.hint.map { StandardErrorText.safe($0, concealing: secrets) }
            }
        let text = "tracker: " + message + (hint.map { "\n" + $0 } ?? "")
        return .object([
            ("content", .array([.object([("type", .string("text")), ("text", .string(text))])])),
            (
                "structuredContent",
                .object([
                    (
                        "error",
                        .object([
                            ("code", .number(Double(error.exitCode.rawValue))), ("message", .string(message)),
                            ("hint", .string(or: hint)),
                        ])
                    )
                ])
            ),
            ("isError", .bool(true)),
        ])
    }
}

/// Where a call's progress goes: `notifications/progress` for the request's token, at most four a second.
package final class ProgressSink: Sendable {
    private let send: @Sendable (JSONValue) -> Void
    private let token: JSONValue
    private let now: @Sendable () -> Double
    private let last = Locked((time: -1.0, progress: 0))

    package init(token: JSONValue, now: @escaping @Sendable () -> Double, send: @escaping @Sendable (JSONValue) -> Void)
    {
        self.token = token
        self.now = now
        self.send = send
    }

    /// Records read so far; sent when a quarter of a second has passed since the last one and the count has grown.
    package func report(records: Int) {
        guard isDue(records) else { return }
        send(
            JSONRPC.notification(
                "notifications/progress",
                .object([
                    ("progressToken", token), ("progress", .number(Double(records))),
                    ("message", .string("\(records) read")),
                ])))
    }

    /// Bytes of a file transfer moved, of `total`; sent as records are, and always once the transfer is whole.
    package func report(bytes: Int, of total: Int) {
        guard isDue(bytes, finished: total > 0 && bytes >= total) else { return }
        send(
            JSONRPC.notification(
                "notifications/progress",
                .object([
                    ("progressToken", token), ("progress", .number(Double(bytes))), ("total", .number(Double(total))),
                    ("message", .string("\(ByteCount.text(bytes)) of \(ByteCount.text(total))")),
                ])))
    }

    /// Whether `progress` is news: it has grown, and a quarter of a second has passed (or it is the last).
    private func isDue(_ progress: Int, finished: Bool = false) -> Bool {
        let time = now()
        return last.withLock { last -> Bool in
            guard progress > last.progress, finished || time - last.time >= 0.25 else { return false }
            last = (time, progress)
            return true
        }
    }
}

/// What the executable gives mcp's tools: sessions opened as the command line opens them (for a call's interruption),
/// the clock, the files an upload names checked as the command line checks them, the start of a call's turn for the
/// copies of the tables, and the token a failure must never show.
package struct ToolHost: Sendable {
    package var opener: @Sendable (Workspace.Scope) -> SessionOpener
    package var now: @Sendable () -> Date
    package var timeZone: Zone
    package var checkUploads: @Sendable (_ paths: [String], _ command: String) throws -> [UploadFile]
    package var beginTurn: @Sendable ((@Sendable (Int) -> Void)?) -> Void
    /// A call came: the copies followed are told someone looks.
    package var looked: @Sendable () async -> Void = {}
    package var token: @Sendable () -> String?
    /// tracker's version, for the server's name in the protocol.
    package var version: String
    /// The approval page's address for an approval's id (serve); nil where there is no page (`mcp` over stdio).
    package var approvalPage: (@Sendable (String) -> String)? = nil

    /// Each value given.
    package init(
        opener: @escaping @Sendable (Workspace.Scope) -> SessionOpener, now: @escaping @Sendable () -> Date,
        timeZone: Zone, checkUploads: @escaping @Sendable ([String], String) throws -> [UploadFile],
        beginTurn: @escaping @Sendable ((@Sendable (Int) -> Void)?) -> Void,
        token: @escaping @Sendable () -> String?, version: String
    ) {
        self.version = version
        self.opener = opener
        self.now = now
        self.timeZone = timeZone
        self.checkUploads = checkUploads
        self.beginTurn = beginTurn
        self.token = token
    }
}
