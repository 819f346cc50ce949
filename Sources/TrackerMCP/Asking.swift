import TrackerModel

/// How one tool call may ask its person mid-call: in the handshake era the server sends `elicitation/create` and
/// waits for the answer; in 2026-07-28's the call answers `input_required` and the client calls again with the
/// person's answer (`inputResponses`) and the state the server gave (`requestState`).
package struct Asking: Sendable {
    package var era: Era
    /// What the client can show; nil: it cannot ask (the call answers `approval_needed`).
    package var modes: ElicitationModes?
    /// The handshake era's question, sent on the call's channel; nil in 2026-07-28's.
    package var ask: (@Sendable (_ method: String, _ params: JSONValue) async -> JSONValue?)?
    /// 2026-07-28's retry: the person's answers and the state the first answer carried.
    package var responses: JSONValue?
    package var requestState: String?

    /// How long the handshake era waits for a person's answer before the call answers `approval_needed`.
    package static let patience = 300.0

    /// The call's, from its era and params.
    init(era: Era, params: JSONValue?, conversation: MCPConversation, notify: @escaping @Sendable (JSONValue) -> Void) {
        self.era = era
        switch era {
        case .handshake:
            modes = conversation.elicitation
            ask = { method, params in
                await conversation.ask(method, params, send: notify, within: Self.patience)
            }
        case .modern:
            modes = ElicitationModes(params?["_meta"]?[MCPServer.capabilitiesKey]?["elicitation"])
            responses = params?["inputResponses"]
            requestState = params?["requestState"]?.stringValue
        }
    }
}
