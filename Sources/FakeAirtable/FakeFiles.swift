import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerSystem
import TrackerModel

/// The fake's download host (Airtable's v5.airtableusercontent.com, docs/airtable.md "Attachments"): a second loopback
/// server, on
/// 127.0.0.2 where the system has it, serving every attachment's bytes at a signed address that expires. It needs no
/// token, and records whether one came.
public final class FakeFiles: @unchecked Sendable {
    /// One download request as the host saw it.
    public struct Entry: Sendable {
        public var path: String
        /// The `Authorization` header, when one came (it never should).
        public var authorization: String?
        public var status: Int?
    }

    /// What the host does instead of serving a file.
    public enum Fault: Sendable {
        /// Answer with this status (an expired address: 403 or 410).
        case status(Int)
        /// Send the headers and half of the file, then reset the connection.
        case resetMidBody
        /// Send the headers, then nothing for this long.
        case stallBody(seconds: Double)
        /// A whole answer, its length true to what is sent, holding only the first half of the file (what a storage
        /// host serving a truncated object sends: nothing on the wire says it is short).
        case shortBody
    }

    private struct Stored {
        var data: Data?
        var size: Int
    }

    private let lock = Locked(())
    private var stored: [String: Stored] = [:]
    private var generation = 0
    private var entries: [Entry] = []
    private var faults: [Int: Fault] = [:]
    private var count = 0
    private var server: HTTPServer?
    private(set) var host = "127.0.0.1"
    /// Seconds an address lives (Airtable: about two hours).
    var lifetime = 7200.0
    /// What an expired address gets; UNCONFIRMED whether Airtable sends 403 or 410 (docs/airtable.md "Attachments"), so
    /// tests try both.
    public var expiredStatus = 410
    var latency = 0.0

    init() {}

    private func locked<T>(_ body: () throws -> T) rethrows -> T { try lock.withLock { _ in try body() } }

    /// Starts the host on 127.0.0.2 (else 127.0.0.1) at a free port.
    func start() throws {
        let server = HTTPServer { [unowned self] request in handle(request) }
        do {
            try server.start(port: 0, host: "127.0.0.2")
            host = "127.0.0.2"
        } catch {
            try server.start(port: 0, host: "127.0.0.1")
        }
        self.server = server
    }

    func stop() { server?.stop() }

    /// `http://HOST:PORT`.
    public var origin: String { "http://\(host):\(server?.port ?? 0)" }

    /// Every download request so far.
    public var log: [Entry] { locked { entries } }

    /// Makes the `number`-th download request from now on (1 = the next) misbehave.
    public func inject(_ fault: Fault, onRequest number: Int) { locked { faults[count + number] = fault } }

    /// Makes every address handed out so far expire at once.
    public func expireAddresses() { locked { generation += 1 } }

    /// Keeps `data` as the bytes of attachment `id`.
    func keep(_ data: Data, id: String) { locked { stored[id] = Stored(data: data, size: data.count) } }

    /// Serves `size` made-up bytes for attachment `id` (the recorded attachments, the benchmark's files).
    func keep(size: Int, id: String) { locked { stored[id] = Stored(data: nil, size: size) } }

    /// Whether the host has bytes for `id`.
    func has(_ id: String) -> Bool { locked { stored[id] != nil } }

    /// A signed address for attachment `id`, valid for `lifetime` seconds from now.
    func address(id: String, filename: String) -> String {
        let expires = Int(Date().timeIntervalSince1970 + lifetime)
        let generation = locked { self.generation }
        let signature = FakeBase.stableID("\(id)/\(generation)/\(expires)", length: 16)
        let name = filename.percentEncoded
        // A segment of dots would be taken as "this" or "the parent" directory by any client.
        let segment = name.allSatisfy { $0 == "." } ? "file" : name
        return "\(origin)/v5/\(id)/\(generation)/\(expires)/\(signature)/\(segment)"
    }

    private func handle(_ request: HTTPRequest) -> HTTPAction {
        if latency > 0 { pause(seconds: latency) }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let fault = locked { () -> Fault? in
            count += 1
            return faults.removeValue(forKey: count)
        }
        let action = answer(parts, fault: fault)
        var status: Int?
        switch action {
        case .respond(let code, _, _), .resetMidBody(let code, _, _), .stallBody(_, let code, _, _): status = code
        default: status = nil
        }
        let entry = Entry(path: request.path, authorization: request.header("authorization"), status: status)
        locked { entries.append(entry) }
        return action
    }

    private func answer(_ parts: [String], fault: Fault?) -> HTTPAction {
        let missing = HTTPAction.respond(status: 404, headers: [:], body: Data("Not Found".utf8))
        guard parts.count >= 6, parts[0] == "v5", let generation = Int(parts[2]), let expires = Int(parts[3]) else {
            return missing
        }
        let id = parts[1]
        let (current, file) = locked { (self.generation, stored[id]) }
        guard parts[4] == FakeBase.stableID("\(id)/\(generation)/\(expires)", length: 16), let file else {
            return missing
        }
        if generation != current || Double(expires) < Date().timeIntervalSince1970 {
            return .respond(
                status: expiredStatus, headers: ["Content-Type": "application/xml"],
                body: Data("<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>".utf8))
        }
        let body = file.data ?? Self.madeUp(size: file.size, seed: id)
        let headers = ["Content-Type": "application/octet-stream"]
        switch fault {
        case .status(let code)?: return .respond(status: code, headers: [:], body: Data("Forbidden".utf8))
        case .resetMidBody?: return .resetMidBody(status: 200, headers: headers, body: body)
        case .stallBody(let seconds)?: return .stallBody(seconds: seconds, status: 200, headers: headers, body: body)
        case .shortBody?: return .respond(status: 200, headers: headers, body: body.prefix(body.count / 2))
        case nil: return .respond(status: 200, headers: headers, body: body)
        }
    }

    /// `size` bytes that depend on `seed`, the same on every request.
    static func madeUp(size: Int, seed: String) -> Data {
        var block = [UInt8](repeating: 0, count: 4096)
        var state = StableHash.of(seed) | 1
        for index in block.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            block[index] = UInt8(truncatingIfNeeded: state)
        }
        var data = Data(capacity: size)
        while data.count < size { data.append(contentsOf: block.prefix(size - data.count)) }
        return data
    }
}
