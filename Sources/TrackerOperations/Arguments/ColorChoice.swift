/// The `--color` setting.
package enum ColorChoice: String, Sendable, CaseIterable {
    case auto, always, never

    /// Whether to colour output: `always` wins; otherwise only on a terminal, and never with NO_COLOR or TERM=dumb.
    package func isEnabled(isTerminal: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }
}
