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
