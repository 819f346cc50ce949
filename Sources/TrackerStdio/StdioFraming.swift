#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerSystem
import TrackerMCP

/// `tracker mcp`'s framing of the one MCP server: a message a line on stdin, answers written to the protocol's
/// descriptor as the work ends, one conversation for the life of the process.
package final class StdioFraming: Sendable {
    package let server: MCPServer
    /// Where answers and notifications are written.
    package let writer: MessageWriter
    /// The process's one conversation.
    package let conversation = MCPConversation()
    /// How long calls in flight may finish after the end of input or a signal, before they are cancelled.
    package let grace: Double

    package init(server: MCPServer, writer: MessageWriter, grace: Double = 1.5) {
        self.server = server
        self.writer = writer
        self.grace = grace
    }

    /// Serves `input` until it ends, then lets what is in flight finish (at most `grace` seconds) and cancels the rest.
    package func serve(_ input: AsyncStream<InputEvent>) async {
        for await event in input {
            switch event {
            case .line(let data): receive(JSONRPC.read(data))
            case .tooLong:
                writer.send(
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
        case .response(let id, let result): conversation.answered(id: id, result: result)
        case .invalid(let id, let code, let text): writer.send(JSONRPC.error(id: id, code, text))
        case .notification(let method, let params): conversation.notified(method, params)
        case .request(let id, let method, let params): start(id: id, method: method, params: params)
        }
    }

    /// Registers the request before the next line is read, so a cancellation right behind it finds it.
    private func start(id: JSONValue, method: String, params: JSONValue?) {
        let call = conversation.begin(id: id)
        let (server, conversation, writer) = (server, conversation, writer)
        let task = Task {
            let answer = await server.answer(
                id: id, method: method, params: params, call: call, in: conversation,
                notify: { writer.send($0) })
            if call.finish() { writer.send(answer) }
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
}
