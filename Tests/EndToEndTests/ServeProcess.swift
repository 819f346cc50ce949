import Foundation
import TrackerHTTP
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `tracker serve` started by a test on a free loopback port (`--listen 127.0.0.1:0`), its port read from its first
/// line, its stderr (the request log) collected.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    private let errors = Pipe()
    private let lock = NSLock()
    private var text = Data()
    private(set) var port = 0

    init(_ tracker: TrackerProcess, arguments: [String] = []) throws {
        process.executableURL = TrackerProcess.binary
        process.arguments = ["serve", "--listen", "127.0.0.1:0"] + arguments
        process.environment = tracker.environment
        process.currentDirectoryURL = URL(fileURLWithPath: tracker.runtimeDirectory)
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = errors
        try process.run()
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            self.text.append(data)
            self.lock.unlock()
        }
        let deadline = Date().addingTimeInterval(15)
        while port == 0, Date() < deadline, process.isRunning {
            if let range = stderr.range(of: "/mcp"), let start = stderr.range(of: "http://127.0.0.1:") {
                port = Int(stderr[start.upperBound..<range.lowerBound]) ?? 0
            }
            usleep(20_000)
        }
        guard port > 0 else { throw XCTSkip("tracker serve did not start: " + stderr) }
    }

    deinit { if process.isRunning { process.terminate() } }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: text, as: UTF8.self)
    }

    /// Each JSON line of the request log.
    var logLines: [[String: Any]] {
        stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Sends SIGTERM and waits (at most `limit` seconds) for the exit status.
    func terminate(limit: Double = 20) -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// One HTTP/1.1 exchange over a socket of its own, written by hand (so a test can send what no client library would:
/// a head too large, a foreign Origin), read to the end of the connection.
struct RawHTTP {
    var status = 0
    var headers: [String: String] = [:]
    var body = Data()

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }

    /// The server-sent events' data lines, each a JSON object.
    var events: [[String: Any]] {
        text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any]
        }
    }

    static func send(port: Int, _ request: Data, limit: Double = 30) -> RawHTTP {
        guard let connection = LoopbackConnection(port: port, timeout: limit) else { return RawHTTP() }
        connection.send(Array(request))
        return parse(Data(connection.readToEnd()))
    }

    /// A request with `Connection: close`, so the answer ends with the connection.
    static func request(
        port: Int, method: String = "POST", path: String = "/mcp", headers: [String: String] = [:], body: Data = Data()
    ) -> RawHTTP {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return send(port: port, Data(head.utf8) + body)
    }

    /// A JSON-RPC message POSTed to /mcp as `token`, in `session` when given.
    static func rpc(
        port: Int, _ message: [String: Any], token: String?, session: String? = nil, extra: [String: String] = [:]
    ) -> RawHTTP {
        var headers = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
        if let token { headers["Authorization"] = "Bearer " + token }
        if let session { headers["Mcp-Session-Id"] = session }
        headers.merge(extra) { $1 }
        let body = (try? JSONSerialization.data(withJSONObject: message)) ?? Data()
        return request(port: port, headers: headers, body: body)
    }

    private static func parse(_ data: Data) -> RawHTTP {
        var answer = RawHTTP()
        guard let end = LoopbackConnection.endOfHead(Array(data)) else { return answer }
        (answer.status, answer.headers) = LoopbackConnection.parseHead(Array(data.prefix(end)))
        var body = Data(data.dropFirst(end + 4))
        if answer.headers["transfer-encoding"] == "chunked" { body = unchunked(body) }
        answer.body = body
        return answer
    }

    private static func unchunked(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let line = rest.range(of: Data("\r\n".utf8)),
            let size = Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16), size > 0
        {
            let start = line.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let end = rest.index(start, offsetBy: size)
            result.append(rest[start..<end])
            rest = rest[rest.index(end, offsetBy: min(2, rest.distance(from: end, to: rest.endIndex)))...]
        }
        return result
    }
}
