#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations
import TrackerSystem

/// A write held for approval, asked of the person through the client where it can ask (elicitation), so the call
/// answers with the write's outcome: the handshake era's `elicitation/create` (a form with the diff as its message,
/// or under serve the approval page to open), 2026-07-28's `input_required` and the call made again with the answer.
/// Where the client cannot ask, or the person does not answer, the call answers `approval_needed`.
extension ToolRunner {
    /// The call's answer to a write held for approval.
    func waiting(_ entry: JournalEntry, call: Call, scope: Workspace.Scope) async throws(AppError) -> JSONValue {
        guard let asking = call.asking, let question = self.question(entry, asking) else {
            return Self.success(approvalNeeded(entry))
        }
        guard asking.era == .handshake, let ask = asking.ask else { return inputRequired(entry, question) }
        var shown = entry
        // A change since the plan is shown and asked once more; after that the person goes to approvals.
        for _ in 0..<2 {
            guard let answer = await ask("elicitation/create", question.params(for: shown, asking.era)) else {
                return Self.success(approvalNeeded(shown))
            }
            switch try await settle(shown, action: answer["action"]?.stringValue, question, scope: scope) {
            case .answer(let object): return Self.success(object)
            case .askAgain(let now): shown = now
            }
        }
        return Self.success(approvalNeeded(shown))
    }

    /// 2026-07-28: the call made again with the person's answer to the approval `id` (`requestState`): the
    /// approval must be this person's and this tool's.
    func answered(_ id: String, tool: MCPTool, call: Call, scope: Workspace.Scope) async throws(AppError)
        -> JSONValue
    {
        let look = try await perform(ApprovalStatus(approvalID: id), scope)
        guard look.entry.command == tool.name else {
            throw .usage(
                "requestState \(id) is an approval of \(look.entry.command), not of \(tool.name)", command: nil)
        }
        let asking = call.asking
        let action = asking?.responses?["approve"]?["action"]?.stringValue
        let question = asking.flatMap { self.question(look.entry, $0) } ?? Question(url: nil)
        switch try await settle(look.entry, action: action, question, scope: scope) {
        case .answer(let object): return Self.success(object)
        case .askAgain(let now): return inputRequired(now, question)
        }
    }

    /// What the client is asked: the approval page to open (serve, where the client can open one), else a form.
    struct Question {
        var url: String?

        func params(for entry: JournalEntry, _ era: Era) -> JSONValue {
            let lines = entry.diffLines.prefix(20).joined(separator: "\n")
            let more = entry.diffLines.count > 20 ? "\n… and \(entry.diffLines.count - 20) more records" : ""
            let conflicts =
                entry.approval?.status == .conflicted
                ? "Changed since it was planned: " + (entry.approval?.conflicts ?? []).joined(separator: "; ") + "\n"
                : ""
            let message =
                "\(conflicts)The assistant asks to \(entry.command) (\(entry.recordCount) record\(entry.recordCount == 1 ? "" : "s")):\n\(lines)\(more)\nApprove this write?"
            if let url {
                var members: [(String, JSONValue)] = [
                    ("mode", .string("url")), ("message", .string("Approve or reject \(entry.command) on its page.")),
                    ("url", .string(url)),
                ]
                if era == .handshake { members.append(("elicitationId", .string(entry.id))) }
                return .object(members)
            }
            return .object([
                ("mode", .string("form")), ("message", .string(message)),
                ("requestedSchema", .object([("type", .string("object")), ("properties", .object([]))])),
            ])
        }
    }

    private func question(_ entry: JournalEntry, _ asking: Asking) -> Question? {
        guard let modes = asking.modes else { return nil }
        if modes.url, let page = host.approvalPage { return Question(url: page(entry.id)) }
        return modes.form ? Question(url: nil) : nil
    }

    /// 2026-07-28's question: the call answers `input_required`, and the client calls again with the answer.
    private func inputRequired(_ entry: JournalEntry, _ question: Question) -> JSONValue {
        .object([
            ("resultType", .string("input_required")),
            (
                "inputRequests",
                .object([
                    (
                        "approve",
                        .object([
                            ("method", .string("elicitation/create")),
                            ("params", question.params(for: entry, .modern)),
                        ])
                    )
                ])
            ),
            ("requestState", .string(entry.id)),
        ])
    }

    enum Settled {
        case answer(JSONValue)
        /// The records changed since the plan: the approval as it is now, to be asked again.
        case askAgain(JournalEntry)
    }

    /// The person's answer carried out: accepted (a form: the write made, exactly once, after the records are read
    /// again; a page: what the person did there), declined (rejected), else still waiting.
    private func settle(_ entry: JournalEntry, action: String?, _ question: Question, scope: Workspace.Scope)
        async throws(AppError) -> Settled
    {
        switch action {
        case "accept" where question.url != nil:
            // The person was sent to the page: the call waits (a while) for what they did there.
            let deadline = MonotonicClock.now() + Asking.patience
            while true {
                let look = try await perform(ApprovalStatus(approvalID: entry.id), scope)
                if look.status != .pending && look.status != .conflicted { return .answer(settled(look)) }
                if MonotonicClock.now() > deadline { return .answer(approvalNeeded(look.entry)) }
                await MonotonicClock.sleep(1)
            }
        case "accept":
            do {
                return .answer(settled(try await perform(Approve(approvalID: entry.id, confirmed: true), scope)))
            } catch .approvalConflict {
                return .askAgain(try await perform(ApprovalStatus(approvalID: entry.id), scope).entry)
            }
        case "decline":
            return .answer(settled(try await perform(Reject(approvalID: entry.id), scope)))
        default:
            return .answer(approvalNeeded(entry))
        }
    }

    /// An approval settled (applied, rejected) as the call's answer.
    private func settled(_ outcome: ApprovalOutcome) -> JSONValue {
        guard case .object(var members) = outcome.object else { return outcome.object }
        members.insert(("approval", .string(outcome.entry.id)), at: 1)
        return .object(members)
    }

    /// An approval's operation, as the person of the call (none of its writes held again).
    private func perform<O: Operation>(_ operation: O, _ scope: Workspace.Scope) async throws(AppError) -> O.Outcome {
        var scope = scope
        scope.planned = nil
        do {
            return try await host.opener(scope).perform(operation)
        } catch let error as AppError {
            throw error
        } catch {
            throw .output("\(error)")
        }
    }
}
