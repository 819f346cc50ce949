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
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerSystem

/// The Model Context Protocol's server: the tools, their runner, and the answer to each message, whatever carries it.
/// `tracker mcp` frames it on stdin and stdout (`serve(_:)`: one conversation for the life of the process, answers
/// written as the work ends); `tracker serve` over HTTP (a conversation a session, or one a request).
package final class MCPServer: Sendable {
    package let tools: [MCPTool]
    package let runner: ToolRunner
    /// Where the stdio framing writes; nil for a server framed by another transport.
    package let writer: MessageWriter?
    /// The stdio framing's one conversation.
    package let conversation = MCPConversation()
    /// How long calls in flight may finish after the end of input or a signal, before they are cancelled.
    package let grace: Double

    package init(tools: [MCPTool], runner: ToolRunner, writer: MessageWriter?, grace: Double = 1.5) {
        self.tools = tools
        self.runner = runner
        self.writer = writer
        self.grace = grace
    }

    /// Serves `input` until it ends, then lets what is in flight finish (at most `grace` seconds) and cancels the rest.
    package func serve(_ input: AsyncStream<InputEvent>) async {
        for await event in input {
            switch event {
            case .line(let data): receive(JSONRPC.read(data))
            case .tooLong:
                writer?.send(
                    JSONRPC.error(
                        id: .null, .invalidRequest,
                        "Invalid Request: the line is over \(InputLines.maximumLine >> 20) MiB and was discarded"))
            case .end: return await finish()
            }
        }
        await finish()
    }

    private func receive(_ message: JSONRPC.Incoming) {
        switch message {
        case .response: return
        case .invalid(let id, let code, let text): writer?.send(JSONRPC.error(id: id, code, text))
        case .notification(let method, let params): conversation.notified(method, params)
        case .request(let id, let method, let params): start(id: id, method: method, params: params)
        }
    }

    /// Registers the request before the next line is read, so a cancellation right behind it finds it.
    private func start(id: JSONValue, method: String, params: JSONValue?) {
        let call = conversation.begin(id: id)
        let (conversation, writer) = (conversation, writer)
        let task = Task {
            let answer = await self.answer(
                id: id, method: method, params: params, call: call, in: conversation,
                notify: { writer?.send($0) })
            if call.finish() { writer?.send(answer) }
            conversation.end(call)
        }
        call.attach(task)
    }

    private func finish() async {
        let deadline = MonotonicClock.now() + grace
        while !isIdle, MonotonicClock.now() < deadline { await MonotonicClock.sleep(0.02) }
        for call in conversation.inFlight { call.cancel() }
        // The cancelled calls end at their next step (a request's answer, a sleep); their clean-up runs then.
        let stop = MonotonicClock.now() + 1
        while !isIdle, MonotonicClock.now() < stop { await MonotonicClock.sleep(0.02) }
    }

    private var isIdle: Bool { conversation.inFlight.isEmpty }

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
        case "tools/call": result = await callTool(params, call: call, notify: notify)
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
    /// What a Ctrl-C would clean up for the command (a file half downloaded).
    package let interruption = Interruption()
    private let state = Locked((phase: Phase.running, task: Task<Void, Never>?.none))

    package enum Phase { case running, cancelled, answered }

    package init(id: JSONValue, person: Person? = nil) {
        self.id = id
        self.person = person
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
