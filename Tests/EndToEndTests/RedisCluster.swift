import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A Redis Cluster of three primaries on loopback (Debian's `redis-server --cluster-enabled yes`, joined by
/// `redis-cli --cluster create`), stopped after the test; skipped where there is no redis-server.
final class RedisCluster {
    let ports: [Int]
    let directory: String
    private var processes: [Process] = []

    init(nodes: Int = 3) throws {
        guard let binary = RedisServer.binary else {
            throw XCTSkip("redis-server is not installed (apt-get install redis-server)")
        }
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("tracker-cluster-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        ports = try Self.freePorts(nodes)
        for port in ports {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [
                "--bind", "127.0.0.1", "--port", "\(port)", "--cluster-enabled", "yes", "--cluster-config-file",
                "\(directory)/nodes-\(port).conf", "--dir", directory, "--save", "", "--appendonly", "no",
            ]
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            processes.append(process)
        }
        for port in ports {
            var up = false
            for _ in 0..<100 where !up {
                up = (try? cli(port, ["PING"])) == "PONG"
                if !up { usleep(20_000) }
            }
            guard up else { throw XCTSkip("redis-server did not start in cluster mode on port \(port)") }
        }
        let (status, text) = try runProgram(
            "/usr/bin/redis-cli",
            ["--cluster", "create"] + ports.map { "127.0.0.1:\($0)" } + ["--cluster-replicas", "0", "--cluster-yes"])
        guard status == 0 else { throw XCTSkip("redis-cli --cluster create failed: \(text.suffix(300))") }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let states = ports.map { (try? cli($0, ["CLUSTER", "INFO"])) ?? "" }
            if states.allSatisfy({ $0.contains("cluster_state:ok") }) { return }
            usleep(100_000)
        }
        throw XCTSkip("the cluster did not become ready")
    }

    deinit {
        for process in processes where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// One command to one node, without following redirections; its output, trimmed.
    @discardableResult
    func cli(_ port: Int, _ words: [String]) throws -> String {
        let (status, text) = try runProgram("/usr/bin/redis-cli", ["-p", "\(port)"] + words)
        guard status == 0 else { throw XCTSkip("redis-cli failed: \(text)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The port of the node that serves `key`'s slot.
    func owner(of key: String) throws -> Int {
        let slot = try XCTUnwrap(Int(try cli(ports[0], ["CLUSTER", "KEYSLOT", key])))
        // CLUSTER SLOTS, as redis-cli prints it: each range's start, end, then its nodes' host, port and id.
        let lines = try cli(ports[0], ["CLUSTER", "SLOTS"]).split(separator: "\n").map(String.init)
        var index = 0
        while index + 3 < lines.count {
            if let start = Int(lines[index]), let end = Int(lines[index + 1]), let port = Int(lines[index + 3]),
                (start...end).contains(slot)
            {
                return port
            }
            index += 1
        }
        throw XCTSkip("no node serves slot \(slot)")
    }

    /// The keys each node holds.
    func keys(on port: Int) throws -> [String] {
        try cli(port, ["--scan"]).split(separator: "\n").map(String.init)
    }

    /// Loopback ports free for a node and for its cluster bus (the port + 10,000, below 65,536).
    private static func freePorts(_ count: Int) throws -> [Int] {
        var found: [Int] = []
        var candidate = 20000 + Int.random(in: 0..<8000)
        while found.count < count && candidate < 30000 {
            if isFree(candidate) && isFree(candidate + 10000) { found.append(candidate) }
            candidate += 1
        }
        guard found.count == count else { throw XCTSkip("no free loopback ports for a cluster") }
        return found
    }

    private static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
