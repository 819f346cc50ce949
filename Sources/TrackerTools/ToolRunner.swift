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
        let scope = CallScope(interruption: call.interruption, person: call.person)
        var heard: (@Sendable (Int) -> Void)? = nil
        if let progress { heard = { progress.report(records: $0) } }
        // A call is someone looking: a team's copy that slowed while nobody did is brought up to date first.
        await host.looked()
        host.beginTurn(heard)
        do {
            let plan = try ToolArguments(tool: tool, root: root).plan(arguments)
            let structured = try await run(tool, plan, scope: scope, progress: progress)
            return Self.success(structured)
        } catch {
            return Self.failure(error, concealing: [host.token(), call.person?.token].compactMap { $0 })
        }
    }

    private func run(_ tool: MCPTool, _ plan: ToolArguments.Plan, scope: CallScope, progress: ProgressSink?)
        async throws(AppError) -> JSONValue
    {
        guard let outcome = try await perform(tool, plan, scope: scope, progress: progress) else {
            throw AppError.usage("\(tool.name) is not a tool of this server", command: nil)
        }
        return outcome
    }

    /// A tool whose command is an operation: its arguments become the operation's options by the command's own rules,
    /// it runs in a session of the server's, and its typed outcome is encoded here. Nil for the other tools.
    private func perform(
        _ tool: MCPTool, _ plan: ToolArguments.Plan, scope: CallScope, progress: ProgressSink?
    ) async throws(AppError) -> JSONValue? {
        let interruption = scope.interruption
        let today = CalendarDate(host.now(), in: host.timeZone)
        do {
            switch tool.name {
            case "status":
                let status = try Status(plan.named, today: today)
                let report = try await host.opener(scope).perform(status)
                return Self.bounded(report.jsonValue(today: today), limit: plan.limit)
            case "report":
                var report = try Report(plan.named, today: today)
                // An assistant is given the digest of a quiet week too: its sections empty, not an error.
                report.always = true
                guard let document = try await host.opener(scope).perform(report) else {
                    throw Self.nothingToGive(tool)
                }
                return Self.bounded(document.jsonValue(today: today), limit: plan.limit)
            case "list_projects":
                // The first `limit` projects kept, every one counted: a listing of 50,000 costs the memory of `limit`.
                let list = try List(plan.named, today: today)
                var kept: [JSONValue] = []
                var total = 0
                _ = try await host.opener(scope).perform(list) { session in
                    try await list.run(in: session) { event in
                        guard case .page(let page) = event else { return }
                        for project in page {
                            total += 1
                            if kept.count < plan.limit { kept.append(project.jsonValue(today: today)) }
                        }
                        progress?.report(records: total)
                    }
                }
                return Self.wrapped("projects", kept, total: total)
            case "show_project":
                let show = try Show(plan.named, today: today)
                let detail = try await host.opener(scope).perform(show)
                var object = detail.jsonValue(today: today, comments: show.comments)
                if let items = detail.taskObjects(today: today), let progress = object["tasks"] {
                    object = object.adding([("tasks", progress.adding([("items", .array(items))]))])
                }
                return object
            case "add_project":
                let add = try Add(plan.named, today: today)
                guard case .done(let creation) = try await host.opener(scope).perform(add)
                else { throw Self.nothingToGive(tool) }
                return creation.record.jsonValue(today: today)
                    .adding([("created", .bool(creation.isNew))])
            case "update_task":
                return try await updateTask(plan, today: today, scope: scope)
            case "update_project":
                let update = try Update(plan.named, today: today)
                guard
                    case .updated(let updated?, _) = try await host.opener(scope)
                        .perform(update)
                else { throw Self.nothingToGive(tool) }
                return updated.jsonValue(today: today)
            case "delete_project":
                let delete = try Delete(plan.named, today: today)
                var deleted: [Project] = []
                _ = try await host.opener(scope).perform(delete) { session in
                    try await delete.run(in: session) { batch in
                        guard case .projects(let projects) = batch else { return }
                        deleted += projects.filter { project in !deleted.contains { $0.id == project.id } }
                    }
                }
                let items = deleted.prefix(plan.limit).map { $0.jsonValue(today: today) }
                return Self.wrapped("deleted", items, total: deleted.count)
            case "list_tasks":
                let tasks = try Tasks(plan.named, today: today)
                let rows = try await host.opener(scope).perform(tasks)
                let items = rows.tasks.prefix(plan.limit).map { rows.jsonValue($0) }
                progress?.report(records: rows.tasks.count)
                return Self.wrapped("tasks", items, total: rows.tasks.count)
            case "list_comments":
                let comments = try Comments(plan.named, today: today)
                let read = try await host.opener(scope).perform(comments).comments
                progress?.report(records: read.count)
                return Self.wrapped("comments", read.prefix(plan.limit).map(\.object), total: read.count)
            case "list_clients":
                let clients = try Clients(plan.named, today: today)
                let read = try await host.opener(scope).perform(clients)
                progress?.report(records: read.count)
                return Self.wrapped("clients", read.prefix(plan.limit).map(\.object), total: read.count)
            case "delete_task":
                guard case .delete(let delete) = try TaskCommand(plan.named, today: today).verb,
                    case .deleted(let ids) = try await host.opener(scope).perform(delete)
                else { throw Self.nothingToGive(tool) }
                return Self.wrapped("deleted", ids.map(JSONValue.string), total: ids.count)
            case "list_files":
                let files = try Files(plan.named, today: today)
                let read = try await host.opener(scope).perform(files)
                let items = read.attachments.map(\.object)
                return Self.wrapped("files", Array(items.prefix(plan.limit)), total: items.count)
            case "download_files":
                let files = try Files(plan.named, today: today)
                guard case .download(let path, let force) = files.action else { return nil }
                var written: [String] = []
                var heard: (@Sendable (Int, Int) -> Void)? = nil
                if let progress { heard = { progress.report(bytes: $0, of: $1) } }
                _ = try await host.opener(scope).perform(files) { session in
                    let read = try await files.run(in: session)
                    // The directory is the root's, resolved when the arguments were read: absolute already.
                    let done = try await session.download(
                        read.attachments, holder: read.holder, into: try DownloadDirectory(path: path, shown: path),
                        force: force, status: nil, heard: heard, beforeEnding: { interruption.beforeEnding($0) },
                        placed: { written.append($0) })
                    if !done.kept.isEmpty { throw AppError.filesKept(done.kept.map(TextCells.folded)) }
                    return read
                }
                return Self.wrapped("files", written.map(JSONValue.string), total: written.count)
            case "attach_file":
                var attach = try Attach(plan.named, today: today)
                attach.uploads = try host.checkUploads(attach.files, "attach")
                let watch = UploadWatch(starting: { file, _, _ in
                    guard let progress else { return nil }
                    let size = file.size
                    return { sent, total in
                        progress.report(bytes: Int(Double(size) * Double(sent) / Double(max(1, total))), of: size)
                    }
                })
                let outcome = try await host.opener(scope).perform(attach) { session in
                    try await attach.run(in: session, watching: watch) { _ in }
                }
                guard case .attached(let added, _, _) = outcome else {
                    throw Self.nothingToGive(tool)
                }
                let items = added.map(\.object)
                return Self.wrapped("attachments", Array(items.prefix(plan.limit)), total: items.count)
            case "add_task":
                guard case .add(let add) = try TaskCommand(plan.named, today: today).verb,
                    case .done(let creation, _, let rows) = try await host.opener(scope).perform(add)
                else { throw Self.nothingToGive(tool) }
                return rows.jsonValue(creation.record).adding([("created", .bool(creation.isNew))])
            case "add_comment":
                let comment = try Comment(plan.named, today: today)
                switch try await host.opener(scope).perform(comment) {
                case .posted(let posted, _): return posted.object
                case .planned, .notSent: throw Self.nothingToGive(tool)
                }
            default:
                return nil
            }
        } catch let error as AppError {
            throw error
        } catch {
            throw AppError.output("\(error)")
        }
    }

    /// update_task: `task update` for the fields given, then `task done` or `task reopen` on the task it named, by
    /// its id once the first found it.
    private func updateTask(_ plan: ToolArguments.Plan, today: CalendarDate, scope: CallScope)
        async throws -> JSONValue
    {
        var target = plan.named
        var task: JSONValue? = nil
        if plan.changesOtherFields {
            guard case .update(let update) = try TaskCommand(plan.named, today: today).verb else { return .object([]) }
            guard
                case .updated(let updated, let rows, _) = try await host.opener(scope)
                    .perform(update)
            else { throw Self.nothingToGive("update_task") }
            task = rows.jsonValue(updated)
            // The task is now known by its id: the second write cannot name another one.
            target = ScannedArguments(command: plan.named.command, positionals: ["update", updated.id])
        }
        guard let complete = plan.completeAfter else { return task ?? .object([]) }
        var completion = try TaskCompletion(
            ScannedArguments(
                command: target.command, values: target.values.filter { $0.key == "--project" },
                positionals: Array(target.positionals.dropFirst())), complete: complete)
        completion.mode.json = true
        guard
            case .written(let tasks, let rows?) = try await host.opener(scope)
                .perform(completion), let first = tasks.first
        else { throw Self.nothingToGive("update_task") }
        return rows.jsonValue(first)
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
    static func nothingToGive(_ tool: MCPTool) -> AppError { nothingToGive(tool.name) }

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
    package var opener: @Sendable (CallScope) -> SessionOpener
    package var now: @Sendable () -> Date
    package var timeZone: Zone
    package var checkUploads: @Sendable (_ paths: [String], _ command: String) throws -> [UploadFile]
    package var beginTurn: @Sendable ((@Sendable (Int) -> Void)?) -> Void
    /// A call came: the copies followed are told someone looks.
    package var looked: @Sendable () async -> Void = {}
    package var token: @Sendable () -> String?
    /// tracker's version, for the server's name in the protocol.
    package var version: String

    /// Each value given.
    package init(
        opener: @escaping @Sendable (CallScope) -> SessionOpener, now: @escaping @Sendable () -> Date,
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

/// What varies with each call, given to the sessions it opens: its Ctrl-C, and who asks.
package struct CallScope: Sendable {
    /// What a cancellation of the call cleans up (a file half downloaded).
    package var interruption: Interruption
    /// The person the transport says asks (`serve`'s bearer); nil: the server's own configuration.
    package var person: Person?

    package init(interruption: Interruption, person: Person? = nil) {
        self.interruption = interruption
        self.person = person
    }
}
