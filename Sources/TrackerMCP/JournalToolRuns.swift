import TrackerModel
import TrackerOperations

/// The runs of the journal's tools: what tracker wrote, and taking one write back.
enum JournalToolRuns {
    static func history(_ call: ToolCall) async throws -> JSONValue {
        var history = try History(call.named, today: call.today)
        history.limit = call.plan.limit
        let entries = try await call.opener.perform(history)
        return call.listing(entries.map(\.listed), total: entries.count)
    }

    static func undo(_ call: ToolCall) async throws -> JSONValue {
        let outcome = try await call.opener.perform(try Undo(call.named, today: call.today))
        // What was left alone is the answer's, not a failure: the rest was undone, and the assistant says so.
        return outcome.object
    }

    static func approvalStatus(_ call: ToolCall) async throws -> JSONValue {
        let id = call.named.positionals.first ?? ""
        let outcome = try await call.opener.perform(ApprovalStatus(approvalID: id))
        guard case .object(var members) = outcome.object else { return outcome.object }
        if let page = call.host.approvalPage { members.append(("approvalUrl", .string(page(id)))) }
        return .object(members)
    }
}
