import FakeAirtable
import Foundation

// The benchmark: start-up, listings of 16, 1,000 and 50,000 projects, one add, and a rate-limited listing, each run
// several times against the loopback fake; then tracker beside curl, memory, and pacing.
//   swift build -c release --static-swift-stdlib && .build/release/benchmark [--quick]
// (the static build needs libcurl's development package; a plain `swift build -c release` works too, slower to start)
let quick = CommandLine.arguments.contains("--quick")
let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let tracker = ProcessInfo.processInfo.environment["TRACKER_BINARY"] ?? directory + "/tracker"
Measure.helper = directory + "/measure-child"
guard FileManager.default.isExecutableFile(atPath: tracker) else {
    print("benchmark: no tracker at \(tracker); run `swift build -c release` first")
    exit(78)
}
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tracker-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: scratch) }

/// A running fake and the environment that points tracker at it.
func serve(_ records: [[String: Any]], requestsPerSecond: Int? = nil, trackerPace: Int = 10000) throws -> (
    FakeAirtable, [String: String]
) {
    var options = FakeAirtable.Options()
    options.requestsPerSecond = requestsPerSecond
    let fake = FakeAirtable(options: options, records: records)
    try fake.start()
    let secrets = scratch + "/secrets-\(UUID().uuidString).json"
    let json =
        #"{"token": "\#(options.token)", "baseId": "\#(options.baseID)", "table": "\#(options.table)", "endpoint": "\#(fake.endpoint)", "requestsPerSecond": \#(trackerPace)}"#
    try json.write(toFile: secrets, atomically: false, encoding: .utf8)
    chmod(secrets, 0o600)
    let runtime = scratch + "/run-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    return (
        fake, ["TRACKER_SECRETS": secrets, "TRACKER_RUNTIME_DIR": runtime, "HOME": scratch, "PATH": "/usr/bin:/bin"]
    )
}

func repeatRun(_ count: Int, _ arguments: [String], _ environment: [String: String]) -> Summary {
    _ = Measure.run(tracker, arguments, environment: environment)  // warm-up: page cache, fake's first cursor
    return Summary(samples: (0..<count).map { _ in Measure.run(tracker, arguments, environment: environment) })
}

var rows: [(String, Summary)] = []
@MainActor func record(_ name: String, _ summary: Summary) {
    rows.append((name, summary))
    let (low, high) = summary.wallRange
    print(
        String(
            format: "  %-42@ %10@  (%@ – %@)  cpu %@  rss %.1f MiB%@", name as NSString,
            seconds(summary.wall) as NSString,
            seconds(low) as NSString, seconds(high) as NSString, seconds(summary.cpu) as NSString, summary.peak,
            (summary.failures > 0 ? "  FAILED \(summary.failures)" : "") as NSString))
}

let machine =
    (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
    .first { $0.hasPrefix("model name") }.map {
        String($0.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces)
    } ?? "unknown CPU"
/// Whether the binary carries the Swift runtime itself (built with --static-swift-stdlib).
func linkage(_ path: String) -> String {
    let ldd = Process()
    ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
    ldd.arguments = [path]
    let pipe = Pipe()
    ldd.standardOutput = pipe
    guard (try? ldd.run()) != nil else { return "unknown linkage" }
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    ldd.waitUntilExit()
    return text.contains("libswiftCore.so")
        ? "Swift runtime linked dynamically" : "Swift runtime and Foundation linked statically"
}

print("tracker benchmark: \(tracker) (\(linkage(tracker)))")
print(
    "machine: \(machine), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
)
print()

record("tracker --version", repeatRun(quick ? 10 : 50, ["--version"], [:]))

let (small, smallEnv) = try serve(FakeAirtable.recordedProjects)
record("list, 16 projects (1 page)", repeatRun(quick ? 5 : 20, ["list"], smallEnv))
record("add, 1 project", repeatRun(quick ? 5 : 10, ["add", "--name", "Benchmark", "--due", "2026-12-01"], smallEnv))
small.stop()

let (thousand, thousandEnv) = try serve(FakeAirtable.generatedProjects(count: 1000))
let listThousand = repeatRun(quick ? 3 : 10, ["list"], thousandEnv)
record("list, 1,000 projects (10 pages)", listThousand)
let ndjsonThousand = repeatRun(quick ? 3 : 5, ["list", "--format", "ndjson"], thousandEnv)
record("list --format ndjson, 1,000 projects", ndjsonThousand)
thousand.stop()

let count = quick ? 10_000 : 50_000
let pages = count / 100
let (big, bigEnv) = try serve(FakeAirtable.generatedProjects(count: count))
let listBig = repeatRun(quick ? 1 : 5, ["list"], bigEnv)
record("list, \(count) projects (\(pages) pages)", listBig)
let ndjsonBig = repeatRun(quick ? 1 : 3, ["list", "--format", "ndjson"], bigEnv)
record("list --format ndjson, \(count) projects", ndjsonBig)

// The same pages fetched by curl in a shell loop: the floor any client pays for this fake and this loopback.
let query =
    "pageSize=100"
    + [
        "Name", "Category", "Complete", "Kickoff%20date", "Due%20date", "Project%20lead", "Project%20team", "Client",
        "Notes",
    ]
    .map { "&fields%5B%5D=\($0)" }.joined()
let loop = """
    offset=""
    while :; do
      body=$(curl -s -H "Authorization: Bearer $TOKEN" "$URL?\(query)${offset:+&offset=$offset}")
      offset=$(printf '%s' "$body" | grep -o '"offset":"[^"]*"' | cut -d'"' -f4 | sed 's|/|%2F|g')
      printf '%s\\n' "$body"
      [ -n "$offset" ] || break
    done
    """
let curlEnvironment = [
    "TOKEN": big.options.token, "URL": "\(big.endpoint)/v0/\(big.options.baseID)/Design%20projects",
    "PATH": "/usr/bin:/bin",
]
_ = Measure.run("/bin/bash", ["-c", loop], environment: curlEnvironment)
let curl = Summary(
    samples: (0..<(quick ? 1 : 3)).map { _ in Measure.run("/bin/bash", ["-c", loop], environment: curlEnvironment) })
record("curl loop, same \(pages) pages", curl)
big.stop()

let (limited, limitedEnv) = try serve(FakeAirtable.generatedProjects(count: 1000), requestsPerSecond: 5, trackerPace: 5)
let paced = Summary(samples: (0..<(quick ? 1 : 3)).map { _ in Measure.run(tracker, ["list"], environment: limitedEnv) })
record("list, 1,000 projects, fake enforcing 5 req/s", paced)
let refused = limited.log.filter { $0.status == 429 }.count
limited.stop()

// Imports of 1,000 rows against a fake enforcing Airtable's 5 requests/s (with its lockout), each into a fresh base:
// the floor is 100 writes at 5/s, 20 s.
let importFile = scratch + "/import.csv"
try
    ("name,due,category,lead\n"
    + (1...1000).map {
        "Imported \(String(format: "%04d", $0)),2027-01-\(String(format: "%02d", $0 % 28 + 1)),Brand identity,katherineduh+collab10@demo.htable.com\n"
    }.joined()).write(toFile: importFile, atomically: false, encoding: .utf8)
/// Runs one import into a fresh fake holding `existing` projects; the sample and the 429s the fake answered.
func importOnce(existing: [[String: Any]], _ arguments: [String]) throws -> (Sample, Int, Int) {
    let (fake, environment) = try serve(existing, requestsPerSecond: 5, trackerPace: 5)
    defer { fake.stop() }
    let sample = Measure.run(tracker, ["import", importFile] + arguments, environment: environment)
    return (sample, fake.log.filter { $0.status == 429 }.count, fake.records.count)
}
var importRefusals: [(String, Int, Int)] = []
for (name, existing, arguments) in [
    ("import 1,000 rows, empty table, 5 req/s", [[String: Any]](), [String]()),
    (
        "import 1,000 rows --key name, 1,000 existing, 5 req/s", FakeAirtable.generatedProjects(count: 1000),
        ["--key", "name"]
    ),
] {
    var samples: [Sample] = []
    for _ in 0..<(quick ? 1 : 2) {
        let (sample, limited, stored) = try importOnce(existing: existing, arguments)
        samples.append(sample)
        importRefusals.append((name, limited, stored))
    }
    record(name, Summary(samples: samples))
}

print()
let ratio = listBig.wall / curl.wall
print(String(format: "tracker / curl for %d pages: %.2f× (goal ≤ 1.25×)", pages, ratio))
print(
    String(
        format: "peak RSS, ndjson: %.1f MiB for %d vs %.1f MiB for 1,000: %.2f× (goals < 40 MiB, ≤ 1.5×)",
        ndjsonBig.peak, count, ndjsonThousand.peak, ndjsonBig.peak / ndjsonThousand.peak))
print(String(format: "start-up: %@ median (goal < 15 ms)", seconds(rows[0].1.wall)))
print(
    String(
        format: "paced: 10 pages in %@ vs 2.00 s at 5/s (%+.0f%%), %d × 429 seen by the fake", seconds(paced.wall),
        (paced.wall / 2.0 - 1) * 100, refused))

for (name, limited, stored) in importRefusals {
    print("\(name): \(limited) × 429 seen by the fake, \(stored) projects afterwards")
}

print(
    "\n| scenario | runs | wall, median (min – max) | CPU, median | peak RSS, median |\n| --- | --- | --- | --- | --- |"
)
for (name, summary) in rows {
    let (low, high) = summary.wallRange
    print(
        "| \(name) | \(summary.samples.count) | \(seconds(summary.wall)) (\(seconds(low)) – \(seconds(high))) | \(seconds(summary.cpu)) | \(String(format: "%.1f MiB", summary.peak)) |"
    )
}
