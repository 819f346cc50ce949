import FakeAirtable
import Foundation

/// `tracker mcp` as an assistant's app runs it: one server on pipes, JSON-RPC written and read here.
final class MCPServerProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let reader: FileHandle
    private var buffer = Data()
    private var nextID = 0

    init(_ tracker: String, environment: [String: String]) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: tracker)
        process.arguments = ["mcp"]
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        reader = output.fileHandleForReading
        _ = call("initialize", ["protocolVersion": "2025-11-25", "capabilities": [:]])
    }

    /// Sends a request and waits for its answer (the server sends nothing else here).
    func call(_ method: String, _ params: [String: Any]) -> [String: Any] {
        nextID += 1
        let message: [String: Any] = ["jsonrpc": "2.0", "id": nextID, "method": method, "params": params]
        var data = try! JSONSerialization.data(withJSONObject: message)
        data.append(0x0A)
        input.fileHandleForWriting.write(data)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                if let answer = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    answer["id"] as? Int == nextID
                {
                    return answer
                }
                continue
            }
            let more = reader.availableData
            if more.isEmpty { return [:] }
            buffer.append(more)
        }
    }

    func tool(_ name: String, _ arguments: [String: Any]) -> Bool {
        let result = call("tools/call", ["name": name, "arguments": arguments])["result"] as? [String: Any]
        return result?["isError"] as? Bool == false
    }

    /// The server's CPU seconds (user and system) so far, from /proc.
    var cpuSeconds: Double { benchmark.cpuSeconds(process.processIdentifier) }

    /// Resident memory now, in MiB.
    var residentMiB: Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// The MCP rows: round trips of a cold first call and a warm second one (answers 300 ms late), then `calls`
/// show_project calls to one warm server against as many `tracker show` processes (pace raised, as for the unpaced
/// rows), with the server's resident memory after 10 calls and after all of them.
@MainActor func mcpRows(calls: Int) throws {
    let (slow, slowEnvironment) = try serve(FakeAirtable.recordedProjects, latency: 0.3)
    let server = try MCPServerProcess(tracker, environment: slowEnvironment)
    for label in ["show_project by name, cold first call", "show_project by name, warm second call"] {
        let started = Date()
        let ok = server.tool("show_project", ["project": "Coffee packaging"])
        let wall = Date().timeIntervalSince(started)
        print(
            String(
                format: "  %@ %8.0f ms  (%.1f round trips of 300 ms)%@",
                label.padding(toLength: 54, withPad: " ", startingAt: 0), wall * 1000, wall / 0.3, ok ? "" : "  FAILED")
        )
    }
    server.stop()
    slow.stop()

    let (fake, environment) = try serve(FakeAirtable.recordedProjects)
    _ = Measure.run(tracker, ["list"], environment: environment)  // the schema remembered for both
    var processes = Sample(wall: 0, cpu: 0, peakMiB: 0, status: 0)
    var failures = 0
    let processesStarted = Date()
    for _ in 0..<calls {
        let sample = Measure.run(tracker, ["show", "Coffee packaging", "--json"], environment: environment)
        processes.cpu += sample.cpu
        processes.peakMiB = max(processes.peakMiB, sample.peakMiB)
        if sample.status != 0 { failures += 1 }
    }
    processes.wall = Date().timeIntervalSince(processesStarted)
    let warm = try MCPServerProcess(tracker, environment: environment)
    let cpuBefore = warm.cpuSeconds
    let started = Date()
    var afterTen = 0.0
    var serverFailures = 0
    for index in 0..<calls {
        if !warm.tool("show_project", ["project": "Coffee packaging"]) { serverFailures += 1 }
        if index == 9 { afterTen = warm.residentMiB }
    }
    let wall = Date().timeIntervalSince(started)
    let cpu = warm.cpuSeconds - cpuBefore
    let afterAll = warm.residentMiB
    warm.stop()
    fake.stop()
    print(
        String(
            format: "  %@ wall %.2f s  cpu %.2f s  peak rss %.1f MiB%@",
            "\(calls) × tracker show (processes)".padding(toLength: 40, withPad: " ", startingAt: 0),
            processes.wall, processes.cpu, processes.peakMiB, failures > 0 ? "  FAILED \(failures)" : ""))
    print(
        String(
            format: "  %@ wall %.2f s  cpu %.2f s  (%.2f× the processes' wall)%@",
            "\(calls) × show_project (one server)".padding(toLength: 40, withPad: " ", startingAt: 0),
            wall, cpu, wall / processes.wall, serverFailures > 0 ? "  FAILED \(serverFailures)" : ""))
    print(
        String(
            format: "  server rss after 10 calls %.1f MiB, after %d calls %.1f MiB (%.2f× growth)", afterTen, calls,
            afterAll, afterAll / afterTen))
}

extension MCPServerProcess {
    /// The characters of a tool's answer as the assistant receives it (its `result`, serialized), and whether it failed.
    func answerSize(_ name: String, _ arguments: [String: Any]) -> (Int, Bool) {
        let result = call("tools/call", ["name": name, "arguments": arguments])["result"] as? [String: Any] ?? [:]
        let data = (try? JSONSerialization.data(withJSONObject: result)) ?? Data()
        return (data.count, result["isError"] as? Bool != false)
    }
}

/// The largest answer each reading tool gives with its default arguments on a base of 1,016 projects (the template's
/// 16 and 1,000 more, 10 tasks each): what one call costs an assistant's context (goal: about 30,000 at most).
@MainActor func answerSizeRows() throws {
    let projects = FakeAirtable.recordedProjects + FakeAirtable.generatedProjects(count: 1000)
    let tasks = FakeAirtable.generatedTasks(count: 10_000, projects: 1000)
    // The token's user leads projects and has tasks, as a person asking "what needs me" does.
    let lead = (FakeAirtable.recordedProjects.first?["fields"] as? [String: Any])?["Project lead"] as? [String: Any]
    let (fake, environment) = try serve(projects, tasks: tasks, user: lead?["id"] as? String)
    defer { fake.stop() }
    let server = try MCPServerProcess(tracker, environment: environment)
    defer { server.stop() }
    let calls: [(String, [String: Any])] = [
        ("status", [:]), ("report", [:]), ("list_projects", [:]), ("list_tasks", [:]),
        ("show_project", ["project": "Coffee packaging"]), ("list_comments", ["project": "Coffee packaging"]),
        ("list_clients", [:]), ("list_files", ["project": "Coffee packaging"]),
    ]
    for (name, arguments) in calls {
        let (size, failed) = server.answerSize(name, arguments)
        print(
            "  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(String(format: "%7d", size)) characters"
                + (size > 30_000 ? "  OVER 30,000" : "") + (failed ? "  FAILED" : ""))
    }
}
