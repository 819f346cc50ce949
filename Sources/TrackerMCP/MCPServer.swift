#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

/// The Model Context Protocol's server: the tools, their runner, and the answer to each message, whatever carries it.
/// Two faces frame it: `tracker mcp` on stdin and stdout (TrackerStdio's `StdioFraming`, one conversation for the life
/// of the process) and `tracker serve` over HTTP (a conversation a session, or one a request).
package final class MCPServer: Sendable {
    package let tools: [MCPTool]
    package let runner: ToolRunner

    package init(tools: [MCPTool], runner: ToolRunner) {
        self.tools = tools
        self.runner = runner
    }

    // MARK: - Answers

    /// The answer to one request, in the era the request speaks; what the call reports as it goes (its progress) is
    /// given to `notify`.
    package func answer(
        id: JSONValue, method: String, params: JSONValue?, call: Call, in conversation: MCPConversation,
        notify: @escaping @Sendable (JSONValue) -> Void
    ) async -> JSONValue {
        if method == "initialize" { return JSONRPC.result(id: id, initialize(params, in: conversation)) }
        let era: Era
        if conversation.isHandshakeEra {
            era = .handshake
        } else {
            switch modernEra(method: method, params: params) {
            case .success(let modern): era = modern
            case .failure(let error): return error.answer(id: id)
            }
        }
        let result: Result<JSONValue, RPCError>
        switch method {
        case "ping": result = .success(.object([]))
        case "server/discover": result = .success(discover())
        case "tools/list": result = listTools(params, era: era)
        case "tools/call":
            call.asking = Asking(era: era, params: params, conversation: conversation, notify: notify)
            result = await callTool(params, call: call, notify: notify)
        default: result = .failure(RPCError(.methodNotFound, "Method not found: \(method)"))
        }
        switch result {
        case .success(let value):
            return JSONRPC.result(id: id, era.completing(value, method: method, serverInfo: serverInfo))
        case .failure(let error): return error.answer(id: id)
        }
    }

    private func callTool(_ params: JSONValue?, call: Call, notify: @escaping @Sendable (JSONValue) -> Void) async
        -> Result<JSONValue, RPCError>
    {
        guard case .string(let name)? = params?["name"] else {
            return .failure(RPCError(.invalidParams, "Invalid params: tools/call needs \"name\""))
        }
        guard let tool = tools.first(where: { $0.name == name }) else {
            return .failure(RPCError(.invalidParams, "Unknown tool: \(name)"))
        }
        let progress = params?["_meta"]?["progressToken"].flatMap { token -> ProgressSink? in
            switch token {
            case .string, .number: ProgressSink(token: token, now: MonotonicClock.now, send: notify)
            default: nil
            }
        }
        let arguments = params?["arguments"]
        return .success(await runner.call(tool, arguments: arguments, call: call, progress: progress))
    }
}

/// One request in flight: answered once, or cancelled and never answered.
package final class Call: Sendable {
    package let id: JSONValue
    /// Who asks, when the transport says (`serve`'s bearer); nil: the server's own configuration.
    package let person: Person?
    /// The client that named itself (stdio `mcp`), for the journal.
    package let client: String?
    /// What a Ctrl-C would clean up for the command (a file half downloaded).
    package let interruption = Interruption()
    private let state = Locked((phase: Phase.running, task: Task<Void, Never>?.none))
    private let asked = Locked<Asking?>(nil)

    /// How this call may ask its person (an elicitation), set as it is answered.
    package var asking: Asking? {
        get { asked.withLock { $0 } }
        set { asked.withLock { $0 = newValue } }
    }

    package enum Phase { case running, cancelled, answered }

    package init(id: JSONValue, person: Person? = nil, client: String? = nil) {
        (self.id, self.person, self.client) = (id, person, client)
    }

    package func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.phase == .cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Stops the work; no answer will be sent. False when it was already answered.
    @discardableResult
    package func cancel() -> Bool {
        let task = state.withLock { state -> Task<Void, Never>?? in
            guard state.phase == .running else { return .none }
            state.phase = .cancelled
            return .some(state.task)
        }
        guard let task else { return false }
        task?.cancel()
        return true
    }

    /// Whether the answer may be sent: true once, unless the call was cancelled.
    package func finish() -> Bool {
        state.withLock { state in
            guard state.phase == .running else { return false }
            state.phase = .answered
            return true
        }
    }

    package var wasCancelled: Bool { state.withLock { $0.phase == .cancelled } }
}
