#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel
import TrackerSystem

/// Reads HTTP/1.1 requests (Content-Length bodies, `Expect: 100-continue`) off one socket, within the limits: a head
/// or a body too large is refused before it is read whole, and a request that takes too long to arrive ends the
/// connection.
struct RequestReader {
    let socket: Int32
    let limits: HTTPLimits
    private var buffer = Data()

    init(socket: Int32, limits: HTTPLimits) {
        self.socket = socket
        self.limits = limits
    }

    enum Outcome {
        case request(ServedRequest)
        /// The client closed, or sent nothing in time.
        case ended
        /// Answered with this status, then closed (a head or body over the bounds, a body without a length).
        case refused(Int)
    }

    /// The next request: its first byte waited for up to `waiting` seconds, the rest within the read bound.
    mutating func next(waiting: Double) -> Outcome {
        if buffer.isEmpty, !fill(until: MonotonicClock.now() + waiting) { return .ended }
        let deadline = MonotonicClock.now() + limits.readSeconds
        let separator = Data("\r\n\r\n".utf8)
        var found = buffer.firstRange(of: separator)
        while found == nil {
            guard buffer.count <= limits.headerBytes else { return .refused(431) }
            guard fill(until: deadline) else { return .ended }
            found = buffer.firstRange(of: separator)
        }
        guard let headEnd = found else { return .ended }
        guard headEnd.lowerBound - buffer.startIndex <= limits.headerBytes else { return .refused(431) }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex..<headEnd.upperBound)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return .refused(400) }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingWhitespace()
        }
        // A body's length must be said: a chunked request body is not taken (no client of tracker's sends one).
        if headers["transfer-encoding"] != nil { return .refused(411) }
        guard let length = Int(headers["content-length"] ?? "0"), length >= 0 else { return .refused(400) }
        guard length <= limits.bodyBytes else { return .refused(413) }
        if headers["expect"]?.lowercased() == "100-continue" {
            let reply = Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            _ = reply.withUnsafeBytes { Glibc.send(socket, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        while buffer.count < length {
            guard fill(until: deadline) else { return .ended }
        }
        let body = buffer.prefix(length)
        buffer.removeFirst(length)
        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return .request(
            ServedRequest(
                method: String(requestLine[0]), path: String(parts[0]).percentDecoded ?? String(parts[0]),
                query: parts.count > 1 ? String(parts[1]) : "", target: target, headers: headers, body: Data(body)))
    }

    /// Reads what has arrived, waiting until `deadline` for some; false when the client closed or sent nothing in time.
    private mutating func fill(until deadline: Double) -> Bool {
        while true {
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { return false }
            var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(left, 60) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return false }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(socket, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }
}

extension StringProtocol {
    /// `%XX` sequences decoded as UTF-8; nil when one is malformed or the bytes are not UTF-8.
    public var percentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
