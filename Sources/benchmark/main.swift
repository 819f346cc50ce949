import FakeAirtable
import Foundation

// The benchmark: start-up, listings of 16, 1,000 and 50,000 projects, one add, each everyday command against a fake
// that answers 300 ms late (its round trips), a 2 s wait (its CPU), names at TAB, and a rate-limited listing, each run
// several times against the loopback fake; then tracker beside curl, memory, and pacing.
//   swift build -c release --static-swift-stdlib && .build/release/benchmark [--quick | --digest | --start | --load | --journal | --month [--serve] [--minutes N]]
// (no -dev package is needed; a plain `swift build -c release` works too, slower to start)
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
func serve(
    _ records: [[String: Any]], requestsPerSecond: Int? = nil, trackerPace: Int = 10000, latency: Double = 0,
    tasks: [FakeTaskSpec]? = nil, user: String? = nil, arrival: FakeAirtable.ArrivalDelay = .init(),
    oauth: FakeOAuthIntegration? = nil
)
    throws -> (FakeAirtable, [String: String])
{
    var options = FakeAirtable.Options()
    options.arrivalDelay = arrival
    options.tasks = tasks
    if let user { options.user = (user, nil) }
    options.requestsPerSecond = requestsPerSecond
    options.latency = latency
    options.oauth = oauth
    let fake = FakeAirtable(options: options, records: records)
    try fake.start()
    let secrets = scratch + "/secrets-\(UUID().uuidString).json"
    // With OAuth, `tracker serve` signs people in through the fake's Airtable OAuth.
    let signIn = oauth == nil ? "" : ", " + ServeSignInClient.serveSetting(fake)
    let json =
        #"{"token": "\#(options.token)", "baseId": "\#(options.baseID)", "table": "\#(options.table)", "endpoint": "\#(fake.endpoint)", "requestsPerSecond": \#(trackerPace)\#(signIn)}"#
    try json.write(toFile: secrets, atomically: false, encoding: .utf8)
    chmod(secrets, 0o600)
    let runtime = scratch + "/run-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    // A HOME of its own, so what one fake's base left in the cache does not speed up another's.
    let home = scratch + "/home-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    var environment = [
        "TRACKER_SECRETS": secrets, "TRACKER_RUNTIME_DIR": runtime, "HOME": home, "PATH": "/usr/bin:/bin",
    ]
    // Through the fake's handshake: a new connection waits for it before its first request leaves, as over the
    // internet (libcurl reads http_proxy; the fake answers as a SOCKS5 proxy to itself).
    if arrival.newConnection > 0 { environment["http_proxy"] = "socks5://\(fake.endpoint.dropFirst("http://".count))" }
    return (fake, environment)
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
            format: "  %@ %10@  (%@ – %@)  cpu %@  rss %.1f MiB%@",
            name.padding(toLength: 54, withPad: " ", startingAt: 0) as NSString,
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

/// The digest commands and the listing they are measured against, on one table of `count` projects, run in turn
/// (listing, calendar, report, mail, changes, then again) so a slower minute on a shared machine falls on all of them
/// alike rather than on one command's block; each row's median is over its own runs. Prints their rows and ratios.
@MainActor func digestRows(_ environment: [String: String]) -> [Summary] {
    let commands: [(String, [String])] = [
        ("list --format ndjson, \(count) projects", ["list", "--format", "ndjson"]),
        // calendar: one filtered listing (open projects with a due date) turned into events.
        ("calendar --all, \(count) projects", ["calendar", "--all"]),
        // report: one listing filtered on Airtable (overdue, due in the next 30 days, done and new): 65% of the table.
        ("report --days 30 --format json, \(count) projects", ["report", "--days", "30", "--format", "json"]),
        (
            "report --days 30 --by lead --format email, \(count)",
            ["report", "--days", "30", "--by", "lead", "--format", "email", "--to", "team@example.com"]
        ),
        // changes: the warm-up remembers the table, every run after compares with it; one listing of everything.
        ("changes, \(count) projects, nothing changed", ["changes"]),
    ]
    for (_, arguments) in commands { _ = Measure.run(tracker, arguments, environment: environment) }
    var samples = [[Sample]](repeating: [], count: commands.count)
    for _ in 0..<(quick ? 1 : 9) {
        for (index, (_, arguments)) in commands.enumerated() {
            samples[index].append(Measure.run(tracker, arguments, environment: environment))
        }
    }
    let summaries = samples.map(Summary.init(samples:))
    for (index, (name, _)) in commands.enumerated() { record(name, summaries[index]) }
    let listing = summaries[0]
    for (index, name) in [(1, "calendar"), (2, "report --format json"), (3, "report --format email"), (4, "changes")] {
        digestRatios.append(
            String(
                format: "%@ / list --format ndjson for %d: wall %.2f×, cpu %.2f× (goal ≤ 1.2×)%@", name, count,
                summaries[index].wall / listing.wall, summaries[index].cpu / listing.cpu,
                index == 4 ? String(format: "; peak RSS %.1f MiB (goal < 64)", summaries[index].peak) : ""))
    }
    return summaries
}
var digestRatios: [String] = []
let count = quick ? 10_000 : 50_000
let pages = count / 100

print("tracker benchmark: \(tracker) (\(linkage(tracker)))")
print(
    "machine: \(machine), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
)
print()

// `--files`: downloads beside curl, the upload's memory, and the file commands' round trips.
if CommandLine.arguments.contains("--files") {
    try fileRows()
    print()
    digestRatios.forEach { print($0) }
    exit(0)
}

// `--tasks`: only the task rows against the listing, and the task commands' round trips.
if CommandLine.arguments.contains("--tasks") {
    try taskTrips()
    try taskRows()
    print()
    digestRatios.forEach { print($0) }
    exit(0)
}

// `--mcp`: only the MCP rows (one server's calls against as many processes).
if CommandLine.arguments.contains("--mcp") {
    print("tracker mcp: \(quick ? 100 : 1000) calls")
    try mcpRows(calls: quick ? 100 : 1000)
    print("tracker mcp: the largest default answer of each reading tool, 1,016 projects and 10,000 tasks")
    try answerSizeRows()
    exit(0)
}

// `--two-serves`: only the row of two serves keeping 20 people's Airtable grants.
if CommandLine.arguments.contains("--two-serves") {
    guard let redis = BenchmarkRedis() else { print("no redis-server installed"); exit(0) }
    defer { redis.stop() }
    do { try twoServesRow(redis: redis) } catch { print("  FAILED: \(error)") }
    exit(0)
}

// `--serve`: tracker serve over HTTP against stdio, many clients at once, idle sessions.
if CommandLine.arguments.contains("--serve") && !CommandLine.arguments.contains("--month") {
    print("tracker serve: MCP over HTTP (a fake that enforces 5 requests a second, 1,016 projects)")
    try serveRows(calls: quick ? 100 : 500, clients: 50, callsEach: quick ? 10 : 20)
    exit(0)
}

// `--machines`: several machines listing one base at once, without and with a shared Redis; what Redis costs.
if CommandLine.arguments.contains("--journal") {
    print("the journal: keeping entries, history over 10,000, the undo of a 1,000-row import")
    try journalRows()
    exit(0)
}

if CommandLine.arguments.contains("--machines") {
    print("several machines, one base (a fake that enforces 5 requests a second)")
    try machineRows(machines: quick ? 2 : 3, processes: quick ? 2 : 6, projects: 316, runs: quick ? 10 : 30)
    exit(0)
}

// `--load`: the base's budget on a busy machine: 18 lists at once on one machine, and 3 × 6 through one Redis.
if CommandLine.arguments.contains("--load") {
    print("the budget under load (a fake that enforces 5 requests a second in a sliding second, 30 s lockout)")
    try loadRows(runs: quick ? 2 : 10)
    exit(0)
}

// `--month`: faces left open and idle, and what they cost the workspace's month of calls.
if CommandLine.arguments.contains("--month") {
    let index = CommandLine.arguments.firstIndex(of: "--minutes")
    let minutes =
        index.flatMap { $0 + 1 < CommandLine.arguments.count ? Double(CommandLine.arguments[$0 + 1]) : nil }
        ?? (quick ? 3 : 30)
    if CommandLine.arguments.contains("--serve") {
        print("the month with pings: tracker serve, two boards and two assistants' servers following the team's copy")
        try monthServeRows(minutes: minutes)
    } else {
        print("the month: two boards and two assistants' servers with the team's copy, left idle")
        try monthRows(minutes: minutes)
    }
    exit(0)
}

// `--team`: the team's copy in Redis: ten machines' servers opened together, open servers, a change seen by all.
if CommandLine.arguments.contains("--team-reader") {
    try teamReaderRow(quick: quick)
    exit(0)
}
if CommandLine.arguments.contains("--team-boards") {
    try teamBoardsRows()
    exit(0)
}
if CommandLine.arguments.contains("--team-mixed") {
    try teamMixedRow()
    exit(0)
}
if CommandLine.arguments.contains("--team") {
    print("the team's copy (1,016 projects, 10,160 tasks; a fake that enforces 5 requests a second; one redis-server)")
    try teamRows(quick: quick)
    exit(0)
}

// `--mirror`: what the faces that stay and `changes` send once they keep the tables.
if CommandLine.arguments.contains("--mirror") {
    print("what changed, not the whole table (1,016 projects, 10,000 tasks; a fake that enforces 5 requests a second)")
    try mirrorRows(quick: quick)
    exit(0)
}

// `--board`: only the board's rows (first screen, redraws, idle).
if CommandLine.arguments.contains("--board") {
    print("tracker board")
    try boardRows(presses: quick ? 10 : 30, idle: quick ? 10 : 60)
    exit(0)
}

// `--digest`: only the digest commands against the listing, under a minute instead of seven.
if CommandLine.arguments.contains("--digest") {
    let (big, bigEnv) = try serve(FakeAirtable.generatedProjects(count: count))
    _ = digestRows(bigEnv)
    big.stop()
    print()
    digestRatios.forEach { print($0) }
    exit(0)
}

record("tracker --version", repeatRun(quick ? 10 : 50, ["--version"], [:]))

let (small, smallEnv) = try serve(FakeAirtable.recordedProjects)
record("list, 16 projects (1 page)", repeatRun(quick ? 5 : 20, ["list"], smallEnv))
// list of 16 beside curl fetching the same page (the address tracker's --verbose shows), run after run, so both see the
// machine as it is at that moment.
let samePage = [
    "-sf", "--compressed", "-H", "Authorization: Bearer \(small.options.token)",
    "\(small.endpoint)/v0/\(small.options.baseID)/Design%20projects?pageSize=100",
]
var sixteen: [Sample] = []
var curlSixteen: [Sample] = []
for _ in 0..<(quick ? 10 : 30) {
    sixteen.append(Measure.run(tracker, ["list"], environment: smallEnv))
    curlSixteen.append(Measure.run("/usr/bin/curl", samePage, environment: ["PATH": "/usr/bin:/bin"]))
}
let (listSixteen, curlPage) = (Summary(samples: sixteen), Summary(samples: curlSixteen))
record("list, 16 projects, alternating with curl", listSixteen)
record("curl, the same page, alternating with list", curlPage)
/// list of 16 against curl of the same page.
func sixteenRatio() -> String {
    String(
        format: "list of 16 / curl of the same page: %.2f× (goal ≤ 1.3×), %@ against %@",
        listSixteen.wall / curlPage.wall, seconds(listSixteen.wall), seconds(curlPage.wall))
}
// `--start`: start-up and the list of 16 beside curl only, in seconds.
if CommandLine.arguments.contains("--start") {
    small.stop()
    print()
    print(sixteenRatio())
    exit(0)
}
record("add, 1 project", repeatRun(quick ? 5 : 10, ["add", "--name", "Benchmark", "--due", "2026-12-01"], smallEnv))
small.stop()

// Round trips: a fake that answers every request 300 ms late, as the real service does from afar, so a command's wall
// time divided by 0.3 s is the number of round trips it waited for (requests sent together count once).
let latency = 0.3
var tripRows: [(String, Summary)] = []
@MainActor func recordTrips(_ name: String, _ summary: Summary) {
    tripRows.append((name, summary))
    print(
        String(
            format: "  %@ %10@  %.1f round trips  cpu %@%@",
            name.padding(toLength: 54, withPad: " ", startingAt: 0) as NSString, seconds(summary.wall) as NSString,
            summary.wall / latency, seconds(summary.cpu) as NSString,
            (summary.failures > 0 ? "  FAILED \(summary.failures)" : "") as NSString))
}
let (slow, slowEnv) = try serve(FakeAirtable.recordedProjects, latency: latency)
let ids = slow.records.compactMap { $0["id"] as? String }
let lead = "katherineduh+collab10@demo.htable.com"
let adding = ["add", "--name", "Benchmark", "--due", "2026-12-01", "--category", "Brand identity", "--lead", lead]
let tripRuns = quick ? 1 : 3
/// Runs `arguments` with nothing remembered: a HOME of its own each time.
func coldRun(_ arguments: [String]) throws -> Summary {
    Summary(
        samples: try (0..<tripRuns).map { _ in
            var environment = slowEnv
            environment["HOME"] = scratch + "/home-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: environment["HOME"]!, withIntermediateDirectories: true)
            return Measure.run(tracker, arguments, environment: environment)
        })
}
recordTrips("add --category --lead, nothing remembered", try coldRun(adding))
recordTrips("add --name --due, nothing remembered", try coldRun(["add", "--name", "Cold", "--due", "2027-01-08"]))
recordTrips("calendar, nothing remembered", try coldRun(["calendar"]))
recordTrips("changes (first run), nothing remembered", try coldRun(["changes"]))
recordTrips("show by id, nothing remembered", try coldRun(["show", ids[0]]))
// Coffee packaging links Tasks too, the template's other table, read by name beside the schema.
recordTrips("show by id linking Tasks, nothing remembered", try coldRun(["show", ids[6]]))
recordTrips("list, nothing remembered", try coldRun(["list"]))
recordTrips("list --overdue --json, nothing remembered", try coldRun(["list", "--overdue", "--json"]))
recordTrips("report, nothing remembered", try coldRun(["report"]))
recordTrips("timeline, nothing remembered", try coldRun(["timeline"]))
recordTrips("update by id --due, nothing remembered", try coldRun(["update", ids[5], "--due", "2027-01-14"]))
recordTrips("done by id, nothing remembered", try coldRun(["done", ids[5]]))
recordTrips("reopen by id, nothing remembered", try coldRun(["reopen", ids[5]]))
recordTrips("comment by id, nothing remembered", try coldRun(["comment", ids[5], "Benchmark note"]))
recordTrips("comments by id, nothing remembered", try coldRun(["comments", ids[5]]))
_ = Measure.run(tracker, ["list"], environment: slowEnv)  // remembers the schema, as any earlier command would
recordTrips("list, 16 projects (1 page)", repeatRun(tripRuns, ["list"], slowEnv))
recordTrips("show by id", repeatRun(tripRuns, ["show", ids[6]], slowEnv))
recordTrips("show by name", repeatRun(tripRuns, ["show", "Coffee packaging"], slowEnv))
recordTrips("add --category --lead, schema remembered", repeatRun(tripRuns, adding, slowEnv))
recordTrips("update by id --due", repeatRun(tripRuns, ["update", ids[6], "--due", "2027-01-15"], slowEnv))
recordTrips(
    "update by name --due", repeatRun(tripRuns, ["update", "Coffee packaging", "--due", "2027-01-16"], slowEnv))
recordTrips("done by id", repeatRun(tripRuns, ["done", ids[6]], slowEnv))
recordTrips("reopen by id", repeatRun(tripRuns, ["reopen", ids[6]], slowEnv))
recordTrips("comment by id", repeatRun(tripRuns, ["comment", ids[6], "Benchmark note"], slowEnv))
recordTrips("comments by id", repeatRun(tripRuns, ["comments", ids[6]], slowEnv))
// Each delete needs a project that is still there: the warm-up and every run delete one of their own.
let doomed = ids.suffix(tripRuns + 1)
var deletes = doomed.map { Measure.run(tracker, ["delete", $0, "--yes"], environment: slowEnv) }
deletes.removeFirst()
recordTrips("delete by id --yes", Summary(samples: deletes))
slow.stop()

// Idle while waiting: one page answered after 2 s; the CPU column is what waiting cost.
let (idle, idleEnv) = try serve(FakeAirtable.recordedProjects, latency: 2)
let waiting = repeatRun(tripRuns, ["list"], idleEnv)
record("list, 16 projects answered after 2 s", waiting)
idle.stop()

// Names at TAB: what `tracker show <TAB>` runs, with 5,000 project names remembered.
let (named, namedEnv) = try serve(FakeAirtable.generatedProjects(count: 5000))
_ = Measure.run(tracker, ["list"], environment: namedEnv)
record("names at TAB, 5,000 projects remembered", repeatRun(quick ? 10 : 50, ["__complete", "projects"], namedEnv))
named.stop()

let (thousand, thousandEnv) = try serve(FakeAirtable.generatedProjects(count: 1000))
let listThousand = repeatRun(quick ? 3 : 10, ["list"], thousandEnv)
record("list, 1,000 projects (10 pages)", listThousand)
let ndjsonThousand = repeatRun(quick ? 3 : 5, ["list", "--format", "ndjson"], thousandEnv)
record("list --format ndjson, 1,000 projects", ndjsonThousand)
thousand.stop()

let (big, bigEnv) = try serve(FakeAirtable.generatedProjects(count: count))
let listBig = repeatRun(quick ? 1 : 5, ["list"], bigEnv)
record("list, \(count) projects (\(pages) pages)", listBig)
let digest = digestRows(bigEnv)
let ndjsonBig = digest[0]
try taskRows()
try taskTrips()
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
      body=$(curl -sf --compressed -H "Authorization: Bearer $TOKEN" "$URL?\(query)${offset:+&offset=$offset}") || exit 1
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
print(sixteenRatio())
print(
    String(
        format: "peak RSS, ndjson: %.1f MiB for %d vs %.1f MiB for 1,000: %.2f× (goals < 40 MiB, ≤ 1.5×)",
        ndjsonBig.peak, count, ndjsonThousand.peak, ndjsonBig.peak / ndjsonThousand.peak))
digestRatios.forEach { print($0) }
print(String(format: "start-up: %@ median (goal < 15 ms)", seconds(rows[0].1.wall)))
print(
    String(
        format: "paced: 10 pages in %@ vs 2.00 s at 5/s (%+.0f%%), %d × 429 seen by the fake", seconds(paced.wall),
        (paced.wall / 2.0 - 1) * 100, refused))

for (name, limited, stored) in importRefusals {
    print("\(name): \(limited) × 429 seen by the fake, \(stored) projects afterwards")
}

print(
    "\n| command, every answer 300 ms late | wall, median of \(tripRuns) | round trips (wall ÷ 0.3 s) | CPU, median |\n"
        + "| --- | --- | --- | --- |")
for (name, summary) in tripRows {
    print(
        "| \(name) | \(seconds(summary.wall)) | \(String(format: "%.1f", summary.wall / latency)) | \(seconds(summary.cpu)) |"
    )
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

print("\ntracker mcp")
try mcpRows(calls: quick ? 100 : 1000)

print("\ntracker board")
try boardRows(presses: quick ? 10 : 30, idle: quick ? 10 : 60)
