#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerMCP
import TrackerModel
import TrackerSystem

/// The Model Context Protocol's Streamable HTTP transport on one path: a POST carries one message and is answered
/// with JSON, or with an event stream when the call reports progress. Both eras: 2025-11-25's sessions (`initialize`
/// answers an `Mcp-Session-Id`, DELETE ends it, 30 idle minutes end it too) and 2026-07-28's stateless requests
/// (each its own `_meta`, no session).
package final class MCPOverHTTP: Sendable {
    let server: MCPServer
    private let sessions = Locked([String: HTTPSession]())
    private let now: @Sendable () -> Double
    /// How long a session may go unused.
    package let idleSeconds: Double
    /// How many sessions are kept at most; the one unused longest makes room.
    package static let mostSessions = 10_000

    struct HTTPSession {
        let conversation: MCPConversation
        /// Whose session it is: another person's bearer does not find it.
        let userID: String
        var lastUsed: Double
    }

    /// What a request came to: the answer, and what the log names (the tool called).
    package struct Outcome {
        package var action: HTTPAction
        package var tool: String? = nil
    }

    package init(
        server: MCPServer, idleSeconds: Double = 1800, now: @escaping @Sendable () -> Double = MonotonicClock.now
    ) {
        self.server = server
        self.idleSeconds = idleSeconds
        self.now = now
    }

    /// Sessions open now.
    package var sessionsOpen: Int { sessions.withLock { $0.count } }

    /// The answer to a request on the MCP path from `person`.
    package func answer(_ request: ServedRequest, person: Person) -> Outcome {
        sweep()
        switch request.method {
        case "POST": return post(request, person: person)
        case "DELETE":
            guard let id = request.header("mcp-session-id") else {
                return Outcome(action: Self.plain(400, "Bad Request: no Mcp-Session-Id to end"))
            }
            guard
                let ended = sessions.withLock({ sessions -> HTTPSession? in
                    guard let session = sessions[id], session.userID == person.userID else { return nil }
                    sessions[id] = nil
                    return session
                })
            else { return Outcome(action: Self.plain(404, "Not Found: no such session")) }
            for call in ended.conversation.inFlight { call.cancel() }
            return Outcome(action: .respond(status: 204, headers: [:], body: Data()))
        default:
            // No stream of the server's own (GET): it sends nothing unasked.
            return Outcome(
                action: .respond(
                    status: 405, headers: ["Allow": "POST, DELETE", "Content-Type": "text/plain; charset=utf-8"],
                    body: Data("Method Not Allowed: POST a JSON-RPC message; DELETE ends a session\n".utf8)))
        }
    }

    private func post(_ request: ServedRequest, person: Person) -> Outcome {
        let type = request.header("content-type")?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            return Outcome(action: Self.plain(415, "Unsupported Media Type: send application/json"))
        }
        let accept = request.header("accept")?.lowercased() ?? "*/*"
        guard ["application/json", "text/event-stream", "*/*", "application/*"].contains(where: accept.contains) else {
            return Outcome(action: Self.plain(406, "Not Acceptable: accept application/json and text/event-stream"))
        }
        let message = JSONRPC.read(request.body)
        let (id, method, params): (JSONValue, String, JSONValue?)
        switch message {
        case .invalid(let id, let code, let text):
            return Outcome(action: Self.json(400, JSONRPC.error(id: id, code, text)))
        case .response(let id, let result):
            // The answer to an elicitation the server sent on a call's stream, for the session that holds the call.
            let conversation = request.header("mcp-session-id").flatMap { session($0, of: person)?.conversation }
            conversation?.answered(id: id, result: result)
            return Outcome(action: .respond(status: 202, headers: [:], body: Data()))
        case .notification(let method, let params):
            let conversation = request.header("mcp-session-id").flatMap { session($0, of: person)?.conversation }
            conversation?.notified(method, params)
            return Outcome(action: .respond(status: 202, headers: [:], body: Data()))
        case .request(let requestID, let requestMethod, let requestParams):
            (id, method, params) = (requestID, requestMethod, requestParams)
        }
        let tool = method == "tools/call" ? params?["name"]?.stringValue : nil
        let conversation: MCPConversation
        var headers = ["Content-Type": "application/json"]
        if let sessionID = request.header("mcp-session-id") {
            guard let found = session(sessionID, of: person) else {
                return Outcome(
                    action: Self.json(
                        404, JSONRPC.error(id: id, .invalidRequest, "Session not found: initialize again")),
                    tool: tool)
            }
            if let version = request.header("mcp-protocol-version"),
                !MCPServer.handshakeVersions.contains(version)
            {
                return Outcome(
                    action: Self.json(
                        400, JSONRPC.error(id: id, .invalidRequest, "Unsupported MCP-Protocol-Version: \(version)")),
                    tool: tool)
            }
            conversation = found.conversation
        } else if method == "initialize" {
            let sessionID = Digest.randomHex(bytes: 16)
            conversation = MCPConversation()
            open(sessionID, conversation, person: person)
            headers["Mcp-Session-Id"] = sessionID
        } else if method == "server/discover" || params?["_meta"]?[MCPServer.versionKey] != nil {
            if let mismatch = Self.headerMismatch(request, method: method, params: params) {
                return Outcome(action: Self.json(400, JSONRPC.error(id: id, .headerMismatch, mismatch)), tool: tool)
            }
            // 2026-07-28: every request stands alone.
            conversation = MCPConversation()
        } else {
            return Outcome(
                action: Self.json(
                    400,
                    JSONRPC.error(
                        id: id, .invalidRequest,
                        "Bad Request: no Mcp-Session-Id (begin with initialize, or send 2026-07-28's _meta)")),
                tool: tool)
        }
        let call = conversation.begin(id: id, person: person)
        // A stream when the call reports progress, or may ask the person (a write held for approval, in a session
        // whose client takes elicitations): the question goes on the stream, its answer comes as a POST.
        let wantsStream =
            accept.contains("text/event-stream")
            && (params?["_meta"]?["progressToken"] != nil
                || (method == "tools/call" && conversation.isHandshakeEra && conversation.elicitation != nil))
        guard wantsStream else {
            let answer = Blocking.wait { [server] in
                await server.answer(id: id, method: method, params: params, call: call, in: conversation) { _ in }
            }
            defer { conversation.end(call) }
            // A cancelled call is never answered: the POST is only acknowledged.
            guard call.finish() else { return Outcome(action: .respond(status: 202, headers: [:], body: Data())) }
            return Outcome(
                action: .respond(status: 200, headers: headers, body: Data(answer.serialized().utf8)), tool: tool)
        }
        headers["Content-Type"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        let server = server
        return Outcome(
            action: .stream(status: 200, headers: headers) { stream in
                let queue = MessageQueue()
                Task {
                    let answer = await server.answer(
                        id: id, method: method, params: params, call: call, in: conversation
                    ) { queue.put($0.serialized()) }
                    if call.finish() { queue.put(answer.serialized()) }
                    queue.end()
                }
                while let message = queue.take() {
                    // A client that stopped reading (the send bound) or left: its call stops, nobody else waits.
                    if !stream.event(message) {
                        call.cancel()
                        break
                    }
                }
                conversation.end(call)
            }, tool: tool)
    }

    /// 2026-07-28's headers, when sent, say what the body says.
    private static func headerMismatch(_ request: ServedRequest, method: String, params: JSONValue?) -> String? {
        if let said = request.header("mcp-method"), said != method {
            return "Header mismatch: Mcp-Method says \(said), the body \(method)"
        }
        if let said = request.header("mcp-protocol-version"),
            let body = params?["_meta"]?[MCPServer.versionKey]?.stringValue, said != body
        {
            return "Header mismatch: MCP-Protocol-Version says \(said), the body \(body)"
        }
        return nil
    }

    private func session(_ id: String, of person: Person) -> HTTPSession? {
        let time = now()
        return sessions.withLock { sessions in
            guard var session = sessions[id], session.userID == person.userID else { return nil }
            session.lastUsed = time
            sessions[id] = session
            return session
        }
    }

    private func open(_ id: String, _ conversation: MCPConversation, person: Person) {
        let time = now()
        sessions.withLock { sessions in
            if sessions.count >= Self.mostSessions,
                let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
            {
                sessions[oldest] = nil
            }
            sessions[id] = HTTPSession(conversation: conversation, userID: person.userID, lastUsed: time)
        }
    }

    /// Ends the sessions unused for `idleSeconds`.
    private func sweep() {
        let time = now()
        let ended = sessions.withLock { sessions -> [HTTPSession] in
            let idle = sessions.filter { time - $0.value.lastUsed > idleSeconds }
            for key in idle.keys { sessions[key] = nil }
            return Array(idle.values)
        }
        for session in ended { for call in session.conversation.inFlight { call.cancel() } }
    }

    static func plain(_ status: Int, _ text: String) -> HTTPAction {
        .respond(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data((text + "\n").utf8))
    }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPAction {
        .respond(status: status, headers: ["Content-Type": "application/json"], body: Data(value.serialized().utf8))
    }
}
