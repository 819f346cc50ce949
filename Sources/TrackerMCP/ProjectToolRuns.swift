import TrackerAPI
import TrackerModel
import TrackerOperations

/// The runs of the tools on projects and digests: each its command's operation, its outcome encoded.
enum ProjectToolRuns {
    static func status(_ call: ToolCall) async throws -> JSONValue {
        let status = try Status(call.named, today: call.today)
        let report = try await call.opener.perform(status)
        return ToolRunner.bounded(report.jsonValue(today: call.today), limit: call.plan.limit)
    }

    static func report(_ call: ToolCall) async throws -> JSONValue {
        var report = try Report(call.named, today: call.today)
        // An assistant is given the digest of a quiet week too: its sections empty, not an error.
        report.always = true
        guard let document = try await call.opener.perform(report) else { throw call.nothingToGive() }
        return ToolRunner.bounded(document.jsonValue(today: call.today), limit: call.plan.limit)
    }

    static func listProjects(_ call: ToolCall) async throws -> JSONValue {
        // The first `limit` projects kept, every one counted: a listing of 50,000 costs the memory of `limit`.
        let list = try List(call.named, today: call.today)
        var kept: [JSONValue] = []
        var total = 0
        _ = try await call.opener.perform(list) { session in
            try await list.run(in: session) { event in
                guard case .page(let page) = event else { return }
                for project in page {
                    total += 1
                    if kept.count < call.plan.limit { kept.append(project.jsonValue(today: call.today)) }
                }
                call.progress?.report(records: total)
            }
        }
        return call.listing(kept, total: total)
    }

    static func showProject(_ call: ToolCall) async throws -> JSONValue {
        let show = try Show(call.named, today: call.today)
        let detail = try await call.opener.perform(show)
        var object = detail.jsonValue(today: call.today, comments: show.comments)
        if let items = detail.taskObjects(today: call.today), let progress = object["tasks"] {
            object = object.adding([("tasks", progress.adding([("items", .array(items))]))])
        }
        return object
    }

    static func addProject(_ call: ToolCall) async throws -> JSONValue {
        let add = try Add(call.named, today: call.today)
        guard case .done(let creation) = try await call.opener.perform(add) else { throw call.nothingToGive() }
        return creation.record.jsonValue(today: call.today).adding([("created", .bool(creation.isNew))])
    }

    static func updateProject(_ call: ToolCall) async throws -> JSONValue {
        let update = try Update(call.named, today: call.today)
        guard case .updated(let updated?, _) = try await call.opener.perform(update) else {
            throw call.nothingToGive()
        }
        return updated.jsonValue(today: call.today)
    }

    static func deleteProject(_ call: ToolCall) async throws -> JSONValue {
        let delete = try Delete(call.named, today: call.today)
        var deleted: [Project] = []
        _ = try await call.opener.perform(delete) { session in
            try await delete.run(in: session) { batch in
                guard case .projects(let projects) = batch else { return }
                deleted += projects.filter { project in !deleted.contains { $0.id == project.id } }
            }
        }
        return call.listing(
            deleted.prefix(call.plan.limit).map { $0.jsonValue(today: call.today) }, total: deleted.count)
    }

    static func listClients(_ call: ToolCall) async throws -> JSONValue {
        let read = try await call.opener.perform(try Clients(call.named, today: call.today))
        call.progress?.report(records: read.count)
        return call.listing(read.prefix(call.plan.limit).map(\.object), total: read.count)
    }

    static func addComment(_ call: ToolCall) async throws -> JSONValue {
        switch try await call.opener.perform(try Comment(call.named, today: call.today)) {
        case .posted(let posted, _): return posted.object
        case .planned, .notSent: throw call.nothingToGive()
        }
    }

    static func listComments(_ call: ToolCall) async throws -> JSONValue {
        let read = try await call.opener.perform(try Comments(call.named, today: call.today)).comments
        call.progress?.report(records: read.count)
        return call.listing(read.prefix(call.plan.limit).map(\.object), total: read.count)
    }
}
