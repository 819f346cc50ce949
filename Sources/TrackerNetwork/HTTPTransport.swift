#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerSystem
import TrackerModel

/// An HTTP answer as it arrived: status, headers (looked up in any case) and the body, inflated.
public struct HTTPAnswer: Sendable {
    public var status: Int
    /// Header values by lower-cased name.
    var headers: [String: String]
    public var body: Data

    init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
        self.body = body
    }

    /// A header's value, whatever the case of its name.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// How a request failed before an answer arrived, in the terms retries are decided by.
public enum TransportFailure: Equatable, Sendable {
    /// Nothing reached the server: the connection was refused, the host not found, the machine offline.
    case unreachable(String)
    case timedOut
    /// The request may have reached the server: reset, cut off, an answer that could not be decoded or none at all.
    case broken(String)
    /// The TLS connection failed (mostly a certificate this machine does not trust); it will fail the same way again.
    case tls(String)
    case cancelled
    /// Writing what arrived to a local file failed (a full disk): not the network's doing, and not retried.
    case local(String)
    /// A library tracker sends with is not installed (libcurl): nothing was sent, and retrying cannot help.
    case missingLibrary(String)

    /// The failure in words: never "NSURLErrorDomain error -1001".
    public var words: String {
        switch self {
        case .unreachable(let words), .broken(let words), .tls(let words), .local(let words),
            .missingLibrary(let words):
            words
        case .timedOut: "timed out"
        case .cancelled: "cancelled"
        }
    }
}

/// One exchange as it ended.
public enum TransportOutcome: Sendable {
    case answered(HTTPAnswer)
    case failed(TransportFailure)
}

/// Moves one request and its answer; `NetworkHelper` decides what the outcome means and whether to try again.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits at most `timeout` seconds for the whole answer. With `fresh`, the request goes on a
    /// connection of its own, closed afterwards, so nothing can send it a second time on its own.
    func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome

    /// Sends a GET and writes the body of a 2xx answer to `descriptor` as it arrives, so a file is never whole in
    /// memory; the answer returned then has an empty body (other answers keep theirs). `progress` hears the bytes
    /// received so far. The transfer fails when nothing arrives for `timeout` seconds, however long it takes in all.
    func download(
        _ request: HTTPRequest, into descriptor: Int32, timeout: Double, progress: @escaping @Sendable (Int64) -> Void
    ) async -> TransportOutcome

    /// Makes the transport ready to send at once (a library loaded), before a request takes its turn: what happens
    /// between a turn confirmed and the request leaving must be only the sending.
    func prepare()

    /// Whether `send(_:fresh:timeout:whenConnected:)` asks its gate once the connection is open (DNS, TCP, TLS and any
    /// proxy done), so a request is paced from there and reaches the server a network's jitter after it leaves.
    var connectsBeforeSending: Bool { get }

    /// Sends `request` as `send(_:fresh:timeout:)` does, asking `whenConnected` before the request's first byte
    /// leaves: true lets it go; false abandons it with nothing sent (`.cancelled`). Asked once.
    func send(
        _ request: HTTPRequest, fresh: Bool, timeout: Double, whenConnected: @escaping @Sendable () async -> Bool
    ) async -> TransportOutcome
}

extension HTTPTransport {
    public func prepare() {}

    /// A transport that cannot tell when its connection is open asks the gate before opening it.
    public var connectsBeforeSending: Bool { false }

    public func send(
        _ request: HTTPRequest, fresh: Bool, timeout: Double, whenConnected: @escaping @Sendable () async -> Bool
    ) async -> TransportOutcome {
        guard await whenConnected() else { return .failed(.cancelled) }
        return await send(request, fresh: fresh, timeout: timeout)
    }

    /// Transports that cannot stream (URLSession's data task, test stubs) receive the body whole and write it out.
    public func download(
        _ request: HTTPRequest, into descriptor: Int32, timeout: Double, progress: @escaping @Sendable (Int64) -> Void
    ) async -> TransportOutcome {
        let outcome = await send(request, fresh: false, timeout: timeout)
        guard case .answered(var answer) = outcome, (200..<300).contains(answer.status) else { return outcome }
        progress(Int64(answer.body.count))
        let code = answer.body.withUnsafeBytes { POSIX.writeAll(descriptor, $0) }
        if code != 0 { return .failed(.local("cannot write the file: " + POSIX.describe(code))) }
        answer.body = Data()
        return .answered(answer)
    }
}

extension TransportFailure {
    /// libcurl's description of a failed transfer (how Linux reports most network failures), in the words a user needs.
    static func fromCurl(_ detail: String) -> TransportFailure {
        let text = detail.lowercased()
        if text.hasPrefix("transfer closed with") || text.contains("partial file") {
            return .broken("the answer was cut off")
        }
        if text.contains("content unencoding") || text.contains("content decoding") {
            return .broken("the compressed answer could not be decoded")
        }
        if text.contains("connection reset") || text.contains("recv failure") || text.contains("send failure") {
            return .broken("connection reset")
        }
        if ["ssl", "tls", "certificate", "handshake"].contains(where: { text.contains($0) }) { return .tls(detail) }
        return .broken(detail)
    }
}

/// What sends when libcurl cannot be loaded: every request fails with the one step that mends it.
#if os(Linux)
    /// libcurl's transport, or the one saying it is missing, settled at the first request: libcurl's global set-up
    /// (OpenSSL's among it, up to a millisecond) then finishes on the thread loading it while the command reads its
    /// configuration and cache, instead of before.
    final class LoadingCurlTransport: HTTPTransport {
        private let settled = Locked<(any HTTPTransport)?>(nil)

        private var transport: any HTTPTransport {
            settled.withLock { current in
                if let current { return current }
                let made: any HTTPTransport = CurlTransport() ?? MissingCurlTransport()
                current = made
                return made
            }
        }

        func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
            await transport.send(request, fresh: fresh, timeout: timeout)
        }

        /// Loads libcurl and the libraries behind it now (5 ms, far more on a loaded machine) if no one has yet.
        func prepare() { _ = transport }

        var connectsBeforeSending: Bool { transport.connectsBeforeSending }

        func send(
            _ request: HTTPRequest, fresh: Bool, timeout: Double, whenConnected: @escaping @Sendable () async -> Bool
        ) async -> TransportOutcome {
            await transport.send(request, fresh: fresh, timeout: timeout, whenConnected: whenConnected)
        }

        func download(
            _ request: HTTPRequest, into descriptor: Int32, timeout: Double,
            progress: @escaping @Sendable (Int64) -> Void
        ) async -> TransportOutcome {
            await transport.download(request, into: descriptor, timeout: timeout, progress: progress)
        }
    }
#endif

struct MissingCurlTransport: HTTPTransport {
    func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
        .failed(
            .missingLibrary(
                "libcurl (libcurl.so.4), which tracker sends its requests with, is not installed; install it: apt-get install libcurl4 (libcurl4t64 on Debian 13 and Ubuntu 24.04 or later), or dnf install libcurl"
            ))
    }
}
