#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request as the server read it off the socket.
public struct ServedRequest: Sendable {
    public var method: String
    /// The path, percent-decoded.
    public var path: String
    /// The raw query string, without the `?`.
    public var query: String
    /// The request target exactly as sent: path and query, still percent-encoded.
    public var target: String
    /// The headers by lower-cased name (a repeated header keeps its last value).
    public var headers: [String: String]
    public var body: Data
    /// Whether it is the first request read off its connection.
    public var isFirstOnConnection = false
    /// The client's address, "host:port".
    public var peer = ""
    /// What the server's `opening` said of the connection before its first request ("" without one).
    public var connectionNote = ""

    public init(method: String, path: String, query: String, target: String, headers: [String: String], body: Data) {
        (self.method, self.path, self.query, self.target, self.headers, self.body) =
            (method, path, query, target, headers, body)
    }

    /// A header by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the server does with a request: answer it, stream an answer, or misbehave in one of the ways real networks do
/// (the fake Airtable's faults).
public enum HTTPAction: Sendable {
    case respond(status: Int, headers: [String: String], body: Data)
    /// Sends the head, then whatever `write` sends as it goes (chunked), until it returns; the connection closes after.
    case stream(status: Int, headers: [String: String], write: @Sendable (ResponseStream) -> Void)
    /// Close the connection without a word.
    case close
    /// Abort the connection with a TCP reset.
    case reset
    /// Send the headers and part of the body, then close.
    case truncate(status: Int, headers: [String: String], body: Data)
    /// Send the headers and part of the body, then abort with a TCP reset.
    case resetMidBody(status: Int, headers: [String: String], body: Data)
    /// Say nothing for this long, then close.
    case stall(seconds: Double)
    /// Send the headers, then stall before the body.
    case stallBody(seconds: Double, status: Int, headers: [String: String], body: Data)
}

/// What a server takes from one client: the bounds that keep one client (slow, greedy or hostile) from holding the
/// others back.
public struct HTTPLimits: Sendable {
    /// The request line and headers together; beyond: 431.
    public var headerBytes: Int
    /// A body; beyond: 413, before it is read.
    public var bodyBytes: Int
    /// Connections open at once; one more is answered 503 and closed.
    public var connections: Int
    /// How long a request's head and body may take to arrive once begun (a client trickling bytes is dropped).
    public var readSeconds: Double
    /// How long a kept-alive connection may wait for its next request.
    public var idleSeconds: Double
    /// How long one write may wait for a client that does not read (then the client is dropped).
    public var sendSeconds: Double

    public init(
        headerBytes: Int, bodyBytes: Int, connections: Int, readSeconds: Double, idleSeconds: Double,
        sendSeconds: Double
    ) {
        (self.headerBytes, self.bodyBytes, self.connections) = (headerBytes, bodyBytes, connections)
        (self.readSeconds, self.idleSeconds, self.sendSeconds) = (readSeconds, idleSeconds, sendSeconds)
    }

    /// `serve`'s: 16 KiB of head, 4 MiB of body, 256 connections, 30 s to send a request, 2 minutes idle, 10 s for a
    /// client to take what is written.
    public static let serving = HTTPLimits(
        headerBytes: 16 << 10, bodyBytes: 4 << 20, connections: 256, readSeconds: 30, idleSeconds: 120, sendSeconds: 10)

    /// A test double's: what any test sends (long URLs, uploads of megabytes), with timeouts that never cut a test.
    public static let generous = HTTPLimits(
        headerBytes: 1 << 20, bodyBytes: 64 << 20, connections: 4096, readSeconds: 600, idleSeconds: 600,
        sendSeconds: 600)
}
