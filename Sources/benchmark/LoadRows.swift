import FakeAirtable
import Foundation

/// Two (or `count`) shell loops that keep every core busy until stopped: a small cron host or CI runner at work.
final class BusyCores {
    private var loops: [Process] = []

    init(_ count: Int) {
        for _ in 0..<count {
            let loop = Process()
            loop.executableURL = URL(fileURLWithPath: "/bin/sh")
            loop.arguments = ["-c", "while :; do :; done"]
            if (try? loop.run()) != nil { loops.append(loop) }
        }
    }

    func stop() {
        loops.forEach { $0.terminate() }
        loops.forEach { $0.waitUntilExit() }
    }
}

/// One burst of `machines` × `processes` `tracker list` started at once against a fresh fake that enforces 5 requests
/// a second (a sliding second, 30 s lockout): the requests, the 429s, the wall and the floor (every request the base
/// answered, at 5 a second, the first five at once: the last one a whole second for each five before it).
struct Burst {
    var requests: Int
    var refused: Int
    var wall: Double
    var failed: Int

    /// In a sliding second the k-th request may arrive no sooner than (k - 1) / 5 whole seconds after the first.
    var floor: Double { Double((max(1, requests - refused) - 1) / 5) }

    var line: String {
        String(
            format: "%3d requests, %2d × 429, wall %@ (floor %@, %.2f×)%@", requests, refused,
            seconds(wall) as NSString, seconds(floor) as NSString, floor > 0 ? wall / floor : 0,
            (failed > 0 ? "  FAILED \(failed)" : "") as NSString)
    }

    static func run(
        machines: Int, processes: Int, projects: [[String: Any]], redis: String?,
        arrival: FakeAirtable.ArrivalDelay = .init()
    ) throws -> Burst {
        let (fake, shared) = try serve(projects, requestsPerSecond: 5, trackerPace: 5, arrival: arrival)
        defer { fake.stop() }
        let environments = (0..<machines).map { index -> [String: String] in
            var environment = shared
            environment["HOME"] = scratch + "/machine-\(index)-\(UUID().uuidString)"
            environment["TRACKER_RUNTIME_DIR"] = environment["HOME"]! + "/run"
            try? FileManager.default.createDirectory(
                atPath: environment["TRACKER_RUNTIME_DIR"]!, withIntermediateDirectories: true)
            if let redis { environment["TRACKER_REDIS_URL"] = redis }
            return environment
        }
        let started = Date()
        let children = environments.flatMap { environment in
            (0..<processes).map { _ -> Process in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: tracker)
                process.arguments = ["list"]
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try? process.run()
                return process
            }
        }
        children.forEach { $0.waitUntilExit() }
        return Burst(
            requests: fake.log.count, refused: fake.log.filter { $0.status == 429 }.count,
            wall: Date().timeIntervalSince(started), failed: children.filter { $0.terminationStatus != 0 }.count)
    }
}

/// `--load`: the budget on a busy machine. The floor when idle (one list of 1,016 projects); then `runs` bursts of 18
/// lists on one machine, idle and with every core busy, and of 3 machines × 6 lists through one Redis with every core
/// busy; and both again with the internet's lag before Airtable counts a request (a connection's first request 150 ms
/// after its handshakes, every request up to 50 ms of jitter), each listing a new connection's request and its pages'
/// on the connection kept warm. Goal: 0 × 429 in every run, each within 1.3× its floor.
@MainActor func loadRows(runs: Int) throws {
    let many = FakeAirtable.generatedProjects(count: 1_016)
    for _ in 0..<(quick ? 1 : 3) {
        print(
            "  1 list of 1,016, idle:                 "
                + (try Burst.run(machines: 1, processes: 1, projects: many, redis: nil)).line)
    }
    let projects = FakeAirtable.generatedProjects(count: 316)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var bursts: [(String, Burst)] = []
    for busy in [false, true] {
        for _ in 0..<runs {
            let loops = busy ? BusyCores(cores) : nil
            defer { loops?.stop() }
            let burst = try Burst.run(machines: 1, processes: 18, projects: projects, redis: nil)
            let name = busy ? "18 lists, one machine, \(cores) cores busy" : "18 lists, one machine, idle"
            print("  \(name): " + burst.line)
            bursts.append((name, burst))
        }
    }
    let lag = FakeAirtable.ArrivalDelay(newConnection: 0.15, jitter: 0.05)
    for _ in 0..<runs {
        let burst = try Burst.run(machines: 1, processes: 18, projects: projects, redis: nil, arrival: lag)
        let name = "18 lists, one machine, 150 ms handshakes, 50 ms jitter"
        print("  \(name): " + burst.line)
        bursts.append((name, burst))
    }
    if let redis = BenchmarkRedis() {
        defer { redis.stop() }
        for _ in 0..<runs {
            let loops = BusyCores(cores)
            defer { loops.stop() }
            let burst = try Burst.run(machines: 3, processes: 6, projects: projects, redis: redis.url)
            let name = "3 machines × 6 lists, one Redis, \(cores) cores busy"
            print("  \(name): " + burst.line)
            bursts.append((name, burst))
        }
        for _ in 0..<runs {
            let burst = try Burst.run(machines: 3, processes: 6, projects: projects, redis: redis.url, arrival: lag)
            let name = "3 machines × 6 lists, one Redis, 150 ms handshakes, 50 ms jitter"
            print("  \(name): " + burst.line)
            bursts.append((name, burst))
        }
    } else {
        print("  no redis-server installed (apt-get install redis-server); the Redis runs skipped")
    }
    var names: [String] = []
    for (name, _) in bursts where !names.contains(name) { names.append(name) }
    for name in names {
        let all = bursts.filter { $0.0 == name }.map(\.1)
        let worst = all.map { $0.floor > 0 ? $0.wall / $0.floor : 0 }.max() ?? 0
        print(
            String(
                format: "  %@: %d runs, %d × 429 in all, %d runs with any, worst %.2f× the floor", name as NSString,
                all.count, all.map(\.refused).reduce(0, +), all.filter { $0.refused > 0 }.count, worst))
    }
}
