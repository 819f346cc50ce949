#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

/// JSON-RPC 2.0 as MCP carries it over stdio: one message a line, read into what the server must do with it.
package enum JSONRPC {
    /// The error codes of JSON-RPC and of MCP (the Model Context Protocol's specification).
    package enum Code: Int {
        case parseError = -32700
        case invalidRequest = -32600
        case methodNotFound = -32601
        case invalidParams = -32602
        case internalError = -32603
        /// MCP 2026-07-28: the request's protocol version is not one this server speaks.
        case unsupportedProtocolVersion = -32022
        /// An HTTP header says other than the body (2026-07-28: `MCP-Protocol-Version`, `Mcp-Method`).
        case headerMismatch = -32020
    }

    /// One line, read.
    package enum Incoming: Equatable {
        /// A request: it gets exactly one answer (unless cancelled). `id` is a string or a number.
        case request(id: JSONValue, method: String, params: JSONValue?)
        case notification(method: String, params: JSONValue?)
        /// An answer to something the server asked (an elicitation): its id, and its result (nil: an error).
        case response(id: JSONValue, result: JSONValue?)
        /// A line that cannot be served: answered with this error, with the request's id when it had a usable one.
        case invalid(id: JSONValue, Code, String)
    }

    /// Reads one line (without its newline).
    package static func read(_ line: Data) -> Incoming {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            return .invalid(id: .null, .parseError, "Parse error: the line is not JSON (\(error.message))")
        }
        if case .array = value {
            return .invalid(id: .null, .invalidRequest, "Invalid Request: batches are not supported (MCP 2025-06-18)")
        }
        guard case .object = value else {
            return .invalid(id: .null, .invalidRequest, "Invalid Request: a message is a JSON object")
        }
        let id = value["id"]
        let usableID: JSONValue? =
            switch id {
            case .string?, .number?: id
            default: nil
            }
        guard value["jsonrpc"] == .string("2.0") else {
            return .invalid(id: usableID ?? .null, .invalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\"")
        }
        guard let methodValue = value["method"] else {
            if value["result"] != nil || value["error"] != nil {
                return .response(id: id ?? .null, result: value["result"])
            }
            return .invalid(id: usableID ?? .null, .invalidRequest, "Invalid Request: no \"method\"")
        }
        guard case .string(let method) = methodValue else {
            return .invalid(id: usableID ?? .null, .invalidRequest, "Invalid Request: \"method\" must be a string")
        }
        let params = value["params"]
        if let params {
            switch params {
            case .object, .array: break
            default:
                return .invalid(
                    id: usableID ?? .null, .invalidRequest, "Invalid Request: \"params\" must be an object")
            }
        }
        guard id != nil else { return .notification(method: method, params: params) }
        guard let usableID else {
            return .invalid(id: .null, .invalidRequest, "Invalid Request: \"id\" must be a string or a number")
        }
        return .request(id: usableID, method: method, params: params)
    }

    /// A successful answer.
    package static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
    }

    /// An error answer.
    package static func error(id: JSONValue, _ code: Code, _ message: String, data: JSONValue? = nil) -> JSONValue {
        var error: [(String, JSONValue)] = [("code", .number(Double(code.rawValue))), ("message", .string(message))]
        if let data { error.append(("data", data)) }
        return .object([("jsonrpc", .string("2.0")), ("id", id), ("error", .object(error))])
    }

    /// A notification from the server.
    package static func notification(_ method: String, _ params: JSONValue) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)])
    }
}

extension JSONValue {
    /// This object with `members` added at the end (replacing any of the same name).
    package func adding(_ members: [(String, JSONValue)]) -> JSONValue {
        guard case .object(var own) = self else { return self }
        let names = Set(members.map(\.0))
        own.removeAll { names.contains($0.0) }
        return .object(own + members)
    }
}
