import Foundation
import XCTest

/// The built `tracker mcp` as an MCP client starts it: stdin and stdout are pipes of JSON-RPC, one message a line.
/// Every byte the server writes on stdout must parse as one JSON-RPC message a line; `finish` checks it.
final class MCPSession: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let condition = NSCondition()
    private var pending = Data()
    private var messages: [[String: Any]] = []
    private var everyLine: [String] = []
    private var stderrText = Data()
    private var ended = false
    private var nextID = 1000
    /// Everything written to stdout that was not one JSON-RPC message on a line.
    private(set) var strayOutput: [String] = []

    init(_ tracker: TrackerProcess, arguments: [String] = ["mcp"], directory: String? = nil) throws {
        process.executableURL = TrackerProcess.binary
        process.arguments = arguments
        process.environment = tracker.environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? tracker.runtimeDirectory)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.received(data)
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.condition.lock()
            self.stderrText.append(data)
            self.condition.unlock()
        }
    }

    private func received(_ data: Data) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        if data.isEmpty {
            ended = true
            return
        }
        pending.append(data)
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = pending[pending.startIndex..<newline]
            pending = Data(pending[(newline + 1)...])
            let text = String(decoding: line, as: UTF8.self)
            everyLine.append(text)
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                object["jsonrpc"] as? String == "2.0"
            else {
                strayOutput.append(text)
                continue
            }
            messages.append(object)
        }
    }

    /// Sends one line as it is.
    func sendLine(_ text: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Sends a JSON object as one message.
    func send(_ message: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: message)
        sendLine(String(decoding: data, as: UTF8.self))
    }

    /// Sends a request and returns its id.
    @discardableResult
    func request(_ method: String, _ params: [String: Any]? = nil, id: Any? = nil) -> Any {
        let id =
            id
            ?? { () -> Int in
                nextID += 1
                return nextID
            }()
        var message: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params { message["params"] = params }
        send(message)
        return id
    }

    func notify(_ method: String, _ params: [String: Any]? = nil) {
        var message: [String: Any] = ["jsonrpc": "2.0", "method": method]
        if let params { message["params"] = params }
        send(message)
    }

    /// The answer to the request `id`, waiting at most `timeout` seconds.
    func answer(to id: Any, timeout: Double = 30) -> [String: Any]? {
        first(timeout: timeout) { message in
            message["method"] == nil && Self.same(message["id"], id)
        }
    }

    /// Sends a request and waits for its answer.
    func call(_ method: String, _ params: [String: Any]? = nil, timeout: Double = 30) -> [String: Any] {
        let id = request(method, params)
        guard let answer = answer(to: id, timeout: timeout) else {
            XCTFail("no answer to \(method) within \(timeout) s; stderr: \(stderr)")
            return [:]
        }
        return answer
    }

    /// Calls a tool in the handshake era and returns its result.
    func tool(_ name: String, _ arguments: [String: Any] = [:], meta: [String: Any]? = nil) -> [String: Any] {
        var params: [String: Any] = ["name": name, "arguments": arguments]
        if let meta { params["_meta"] = meta }
        return call("tools/call", params)["result"] as? [String: Any] ?? [:]
    }

    /// The first message matching `predicate`, waiting at most `timeout` seconds.
    func first(timeout: Double, where predicate: ([String: Any]) -> Bool) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = messages.first(where: predicate) { return found }
            if ended || !condition.wait(until: deadline) { return messages.first(where: predicate) }
        }
    }

    /// Every message received so far.
    var received: [[String: Any]] {
        condition.lock()
        defer { condition.unlock() }
        return messages
    }

    var stderr: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: stderrText, as: UTF8.self)
    }

    /// The stdout lines received so far, as written.
    var lines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return everyLine
    }

    /// Closes stdin and waits for the server to exit: its status and how long it took after stdin closed.
    func finish(limit: Double = 10) -> (status: Int32, seconds: Double) {
        let started = Date()
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            XCTFail("tracker mcp did not exit within \(limit) s of the end of stdin")
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        // What is still in the pipe arrives before the end.
        condition.lock()
        let wait = Date().addingTimeInterval(2)
        while !ended && condition.wait(until: wait) {}
        condition.unlock()
        XCTAssertEqual(strayOutput, [], "stdout carried something that is not a JSON-RPC message")
        return (process.terminationStatus, seconds)
    }

    static func same(_ left: Any?, _ right: Any) -> Bool {
        if let left = left as? Int, let right = right as? Int { return left == right }
        if let left = left as? String, let right = right as? String { return left == right }
        if let left = left as? NSNumber, let right = right as? NSNumber { return left == right }
        return false
    }
}

extension [String: Any] {
    /// A tool result's structured content.
    var structured: [String: Any] { self["structuredContent"] as? [String: Any] ?? [:] }
    var isError: Bool { self["isError"] as? Bool ?? false }
    /// A failed tool's exit code.
    var errorCode: Int? { (structured["error"] as? [String: Any])?["code"] as? Int }
    var errorMessage: String { (structured["error"] as? [String: Any])?["message"] as? String ?? "" }
    /// A JSON-RPC error's code.
    var rpcErrorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
}
