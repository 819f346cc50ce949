#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The body of a streamed answer, sent chunk by chunk as it is written (a server-sent event stream).
public final class ResponseStream: Sendable {
    private let send: @Sendable (Data) -> Bool

    init(send: @escaping @Sendable (Data) -> Bool) { self.send = send }

    /// Sends `data` as one chunk now; false once the client is gone (or stopped reading for the send bound).
    @discardableResult
    public func write(_ data: Data) -> Bool {
        guard !data.isEmpty else { return true }
        return send(Data((String(data.count, radix: 16) + "\r\n").utf8) + data + Data("\r\n".utf8))
    }

    /// One server-sent event: `event: message` and its data line (JSON holds no newline).
    @discardableResult
    public func event(_ data: String, id: String? = nil) -> Bool {
        write(Data(((id.map { "id: \($0)\n" } ?? "") + "event: message\ndata: " + data + "\n\n").utf8))
    }
}
