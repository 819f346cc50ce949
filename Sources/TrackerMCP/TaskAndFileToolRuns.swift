import TrackerAPI
import TrackerModel
import TrackerOperations

/// The runs of the tools on tasks: each its command's operation, its outcome encoded.
enum TaskToolRuns {
    static func listTasks(_ call: ToolCall) async throws -> JSONValue {
        let rows = try await call.opener.perform(try Tasks(call.named, today: call.today))
        call.progress?.report(records: rows.tasks.count)
        return call.listing(rows.tasks.prefix(call.plan.limit).map { rows.jsonValue($0) }, total: rows.tasks.count)
    }

    static func addTask(_ call: ToolCall) async throws -> JSONValue {
        guard case .add(let add) = try TaskCommand(call.named, today: call.today).verb,
            case .done(let creation, _, let rows) = try await call.opener.perform(add)
        else { throw call.nothingToGive() }
        return rows.jsonValue(creation.record).adding([("created", .bool(creation.isNew))])
    }

    static func deleteTask(_ call: ToolCall) async throws -> JSONValue {
        guard case .delete(let delete) = try TaskCommand(call.named, today: call.today).verb,
            case .deleted(let ids) = try await call.opener.perform(delete)
        else { throw call.nothingToGive() }
        return call.listing(ids.map(JSONValue.string), total: ids.count)
    }

    /// update_task: `task update` for the fields given, then `task done` or `task reopen` on the task it named, by
    /// its id once the first found it.
    static func updateTask(_ call: ToolCall) async throws -> JSONValue {
        let plan = call.plan
        var target = plan.named
        var task: JSONValue? = nil
        if plan.changesOtherFields {
            guard case .update(let update) = try TaskCommand(plan.named, today: call.today).verb else {
                return .object([])
            }
            guard case .updated(let updated, let rows, _) = try await call.opener.perform(update) else {
                throw call.nothingToGive()
            }
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
        guard case .written(let tasks, let rows?) = try await call.opener.perform(completion), let first = tasks.first
        else { throw call.nothingToGive() }
        return rows.jsonValue(first)
    }
}

/// The runs of the tools on files: listed, downloaded into the root, attached from it.
enum FileToolRuns {
    static func listFiles(_ call: ToolCall) async throws -> JSONValue {
        let read = try await call.opener.perform(try Files(call.named, today: call.today))
        let items = read.attachments.map(\.object)
        return call.listing(Array(items.prefix(call.plan.limit)), total: items.count)
    }

    static func downloadFiles(_ call: ToolCall) async throws -> JSONValue {
        let files = try Files(call.named, today: call.today)
        guard case .download(let path, let force) = files.action else { throw call.nothingToGive() }
        var written: [String] = []
        var heard: (@Sendable (Int, Int) -> Void)? = nil
        if let progress = call.progress { heard = { progress.report(bytes: $0, of: $1) } }
        let interruption = call.scope.interruption ?? Interruption()
        _ = try await call.opener.perform(files) { session in
            let read = try await files.run(in: session)
            // The directory is the root's, resolved when the arguments were read: absolute already.
            let done = try await session.download(
                read.attachments, holder: read.holder, into: try DownloadDirectory(path: path, shown: path),
                force: force, status: nil, heard: heard, beforeEnding: { interruption.beforeEnding($0) },
                placed: { written.append($0) })
            if !done.kept.isEmpty { throw AppError.filesKept(done.kept.map(TextCells.folded)) }
            return read
        }
        return call.listing(written.map(JSONValue.string), total: written.count)
    }

    static func attachFile(_ call: ToolCall) async throws -> JSONValue {
        var attach = try Attach(call.named, today: call.today)
        attach.uploads = try call.host.checkUploads(attach.files, "attach")
        let progress = call.progress
        let watch = UploadWatch(starting: { file, _, _ in
            guard let progress else { return nil }
            let size = file.size
            return { sent, total in
                progress.report(bytes: Int(Double(size) * Double(sent) / Double(max(1, total))), of: size)
            }
        })
        let outcome = try await call.opener.perform(attach) { session in
            try await attach.run(in: session, watching: watch) { _ in }
        }
        guard case .attached(let added, _, _) = outcome else { throw call.nothingToGive() }
        let items = added.map(\.object)
        return call.listing(Array(items.prefix(call.plan.limit)), total: items.count)
    }
}
