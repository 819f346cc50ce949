import FakeAirtable
import Foundation

/// A redis-server of the benchmark's own on a free loopback port, for `--machines`; nil where none is installed.
final class BenchmarkRedis {
    let process = Process()
    let port: Int
    let directory: String

    init?() {
        guard
            let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/bin/valkey-server"].first(
                where: {
                    FileManager.default.isExecutableFile(atPath: $0)
                })
        else { return nil }
        directory = scratch + "/redis-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A port the kernel had free a moment ago.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
            }
        }
        close(probe)
        port = Int(UInt16(bigEndian: address.sin_port))
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--bind", "127.0.0.1", "--port", "\(port)", "--save", "", "--appendonly", "no", "--dir", directory,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        usleep(300_000)
    }

    var url: String { "redis://127.0.0.1:\(port)" }

    /// Runs `redis-cli` against it; its output.
    @discardableResult
    func cli(_ words: [String]) throws -> String {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = ["-p", "\(port)"] + words
        let pipe = Pipe()
        cli.standardOutput = pipe
        try cli.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        cli.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// `--machines`: M machines × P processes listing a base of `projects` at once under a fake that enforces Airtable's
/// 5 requests a second, each machine its own HOME and runtime directory, without and with a shared Redis: the 429s,
/// and the wall against the ceiling's floor (every request the base took, at 5 a second). Then what Redis costs a
/// request on loopback: `list` of 16 with and without it.
@MainActor func machineRows(machines: Int, processes: Int, projects: Int, runs: Int) throws {
    guard let redis = BenchmarkRedis() else {
        print("  no redis-server installed (apt-get install redis-server); --machines skipped")
        return
    }
    defer { redis.stop() }
    let generated = FakeAirtable.generatedProjects(count: projects)
    for useRedis in [false, true] {
        let burst = try Burst.run(
            machines: machines, processes: processes, projects: generated, redis: useRedis ? redis.url : nil)
        print(
            String(
                format: "  %@ %2d × %d list of %d: %@", (useRedis ? "with Redis   " : "without Redis") as NSString,
                machines, processes, projects, burst.line as NSString))
    }
    // What Redis adds to each request: list of 16, alternating with and without, at full pace.
    let (fake, environment) = try serve(FakeAirtable.recordedProjects)
    defer { fake.stop() }
    var withRedis = environment
    withRedis["TRACKER_REDIS_URL"] = redis.url
    _ = Measure.run(tracker, ["list"], environment: environment)
    _ = Measure.run(tracker, ["list"], environment: withRedis)
    var plain: [Sample] = []
    var shared: [Sample] = []
    let before = fake.log.count
    for _ in 0..<runs {
        plain.append(Measure.run(tracker, ["list"], environment: environment))
        shared.append(Measure.run(tracker, ["list"], environment: withRedis))
    }
    let perRun = Double(fake.log.count - before) / Double(2 * runs)
    let without = Summary(samples: plain), with = Summary(samples: shared)
    record("list of 16, this machine's slot files", without)
    record("list of 16, a Redis on loopback", with)
    print(
        String(
            format: "  Redis on loopback: %.2f× the wall of list of 16; %@ a request (%.0f requests a run)",
            with.wall / without.wall, seconds(max(0, with.wall - without.wall) / max(1, perRun)) as NSString, perRun))
}
