import TrackerSystem

/// What `/metrics` counts of the server's own work, in Prometheus' text format: HTTP answers by path and status, MCP
/// calls by tool and outcome with their durations, bearers refused.
package final class ServeMetrics: Sendable {
    private let state = Locked(State())

    private struct State {
        var answers: [String: Int] = [:]
        var calls: [String: (count: Int, seconds: Double)] = [:]
        var refused = 0
    }

    package init() {}

    /// One HTTP answer.
    package func answered(path: String, status: Int) {
        let label = "path=\"\(Self.escaped(path))\",status=\"\(status)\""
        state.withLock { $0.answers[label, default: 0] += 1 }
    }

    /// One tool call, how it ended and how long it took.
    package func called(tool: String, outcome: String, seconds: Double) {
        let label = "tool=\"\(Self.escaped(tool))\",outcome=\"\(outcome)\""
        state.withLock { state in
            let before = state.calls[label] ?? (0, 0)
            state.calls[label] = (before.count + 1, before.seconds + seconds)
        }
    }

    /// A bearer that did not reach the base.
    package func refusedBearer() { state.withLock { $0.refused += 1 } }

    /// The text of `/metrics`, with `more` lines (the face's figures: sessions, the month, the copy) after the server's.
    package func text(more: [String]) -> String {
        let state = state.withLock { $0 }
        var lines = [
            "# HELP tracker_http_responses_total HTTP answers by path and status.",
            "# TYPE tracker_http_responses_total counter",
        ]
        lines += state.answers.sorted { $0.key < $1.key }.map { "tracker_http_responses_total{\($0.key)} \($0.value)" }
        lines += [
            "# HELP tracker_mcp_calls_total MCP tool calls by tool and outcome.",
            "# TYPE tracker_mcp_calls_total counter",
        ]
        lines += state.calls.sorted { $0.key < $1.key }.map { "tracker_mcp_calls_total{\($0.key)} \($0.value.count)" }
        lines += [
            "# HELP tracker_mcp_call_seconds_sum Seconds spent in MCP tool calls by tool and outcome.",
            "# TYPE tracker_mcp_call_seconds_sum counter",
        ]
        lines += state.calls.sorted { $0.key < $1.key }.map {
            "tracker_mcp_call_seconds_sum{\($0.key)} \(Self.decimal($0.value.seconds))"
        }
        lines += [
            "# HELP tracker_bearers_refused_total Requests whose bearer did not reach the base.",
            "# TYPE tracker_bearers_refused_total counter", "tracker_bearers_refused_total \(state.refused)",
        ]
        return (lines + more).joined(separator: "\n") + "\n"
    }

    /// A label's value with `\`, `"` and newlines escaped, as the format asks.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func decimal(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
