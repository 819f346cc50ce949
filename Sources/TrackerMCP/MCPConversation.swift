import TrackerModel
import TrackerSystem

/// One conversation with a client: the era an `initialize` fixed for it, and its requests in flight (a cancellation
/// names one by id). stdio has one for the life of the process; HTTP one a session, or one a request (2026-07-28).
package final class MCPConversation: Sendable {
    private let state = Locked(State())

    private struct State {
        var isHandshakeEra = false
        var calls: [String: Call] = [:]
        /// The name the client gave itself (`clientInfo`), which the journal keeps beside each write it asks for.
        var clientName: String?
        /// How the client can ask its person (`initialize`'s capabilities); nil: it cannot.
        var elicitation: ElicitationModes?
        /// The server's own questions waiting for the client's answer, by their id.
        var asked: [String: CheckedContinuation<JSONValue?, Never>] = [:]
        var nextQuestion = 0
    }

    package init() {}

    package var isHandshakeEra: Bool { state.withLock { $0.isHandshakeEra } }

    package func beginHandshakeEra() { state.withLock { $0.isHandshakeEra = true } }

    /// The client named itself (`initialize`'s `clientInfo`), at most 100 characters of it.
    package func named(_ client: String?) {
        let safe = client.map { name in
            String(
                String.UnicodeScalarView(name.unicodeScalars.filter { !ControlCharacters.isControl($0) }).prefix(100))
        }
        state.withLock { $0.clientName = safe }
    }

    /// A request begins: registered before the next message is read, so a cancellation right behind it finds it.
    package func begin(id: JSONValue, person: Person? = nil) -> Call {
        let call = Call(id: id, person: person, client: state.withLock { $0.clientName })
        state.withLock { $0.calls[Self.key(id)] = call }
        return call
    }

    /// A request ended (answered or cancelled): forgotten, and what a cancelled one left behind cleaned up.
    package func end(_ call: Call) {
        state.withLock { state in
            if state.calls[Self.key(call.id)] === call { state.calls[Self.key(call.id)] = nil }
        }
        // A cancelled call leaves nothing behind: a file half downloaded goes.
        if call.wasCancelled { call.interruption.cleanUp() }
    }

    /// The client said how it can ask its person (`initialize`).
    package func declared(_ modes: ElicitationModes?) { state.withLock { $0.elicitation = modes } }

    /// How the client can ask its person; nil: it cannot (or never said).
    package var elicitation: ElicitationModes? { state.withLock { $0.elicitation } }

    /// Asks the client `method` (an elicitation) through `send`, and waits for its answer at most `seconds`: the
    /// answer's result, or nil (an error, no answer in time, the call cancelled).
    package func ask(
        _ method: String, _ params: JSONValue, send: @Sendable (JSONValue) -> Void, within seconds: Double
    ) async -> JSONValue? {
        let id = state.withLock { state -> String in
            state.nextQuestion += 1
            return "tracker-\(state.nextQuestion)"
        }
        let key = Self.key(.string(id))
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            self?.answered(id: .string(id), result: nil)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { $0.asked[key] = continuation }
                send(
                    .object([
                        ("jsonrpc", .string("2.0")), ("id", .string(id)), ("method", .string(method)),
                        ("params", params),
                    ]))
            }
        } onCancel: { [weak self] in
            self?.answered(id: .string(id), result: nil)
        }
    }

    /// The client answered one of the server's questions (nil: with an error); a question never asked, or answered
    /// already, is ignored.
    package func answered(id: JSONValue, result: JSONValue?) {
        let waiting = state.withLock { $0.asked.removeValue(forKey: Self.key(id)) }
        waiting?.resume(returning: result)
    }

    /// The requests in flight.
    package var inFlight: [Call] { state.withLock { Array($0.calls.values) } }

    /// A notification from the client: a cancellation stops its request (one already answered, or never asked, is
    /// ignored).
    package func notified(_ method: String, _ params: JSONValue?) {
        guard method == "notifications/cancelled", let id = params?["requestId"] else { return }
        let call = state.withLock { $0.calls[Self.key(id)] }
        call?.cancel()
    }

    package static func key(_ id: JSONValue) -> String { id.serialized() }
}

/// Who asks, as a transport that authenticates says (`serve`: the bearer's Airtable user): calls run under the person's
/// own token, so Airtable's history names them.
package struct Person: Sendable, Equatable {
    /// The person's Airtable token (never written anywhere in the clear: not Redis, a file or a log).
    package var token: String
    /// Airtable's id of the token's user (`usr…`), which the request log names.
    package var userID: String

    /// The client the person signed in through (serve's log names it); nil over stdio.
    package var clientID: String?

    package init(token: String, userID: String, clientID: String? = nil) {
        self.token = token
        self.userID = userID
        self.clientID = clientID
    }
}

/// The ways a client can ask its person (its `elicitation` capability): a form, a page to open (2025-11-25).
package struct ElicitationModes: Sendable, Equatable {
    package var form: Bool
    package var url: Bool

    /// The modes a capability names; nil when it names none. An empty object is form mode (2025-06-18).
    package init?(_ capability: JSONValue?) {
        guard case .object(let members)? = capability else { return nil }
        let names = Set(members.map(\.0))
        (form, url) = (names.isEmpty || names.contains("form"), names.contains("url"))
    }
}
