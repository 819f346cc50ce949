import FakeAirtable
import Foundation

// Serves the fake Airtable on loopback for manual runs and the benchmark:
//   fake-airtable [--port N] [--projects N [--tasks N] | --recorded | --customised] [--no-schema] [--no-webhooks] [--not-creator] [--latency S] [--arrival NEW,JITTER] [--rate N] [--lockout S] [--retry-after] [--person TOKEN=USER]
//                 [--compression gzip|deflate|br|none] [--rename FIELD=NAME]... [--fault N:KIND]... [--always KIND]
//                 [--download-fault N:stall|reset|403|410]... [--oauth CLIENT_ID[:SECRET]] [--oauth-life S] [--log]
// KIND: 429 billing 500 502 503 reset drop garbage late truncate stall slow expire html empty shape
func fault(_ kind: String) -> FakeAirtable.Fault? {
    switch kind {
    case "429": .rateLimited()
    case "billing":
        .status(429, type: "PUBLIC_API_BILLING_LIMIT_EXCEEDED", message: "API billing plan limit exceeded.")
    case "500", "502": .status(Int(kind)!, type: nil)
    case "503":
        .status(
            503, type: "RETRIABLE_ERROR",
            message: "Server encountered an error while processing your request, and it is safe to retry the request")
    case "reset": .reset
    case "drop": .applyThenDrop
    case "garbage": .applyThenGarbage
    case "late": .applyLate(seconds: 4)
    case "truncate": .truncatedBody
    case "stall": .stall(seconds: 120)
    case "slow": .slowBody(seconds: 120)
    case "expire": .expireIterator
    case "html": .htmlPage
    case "empty": .emptyBody
    case "shape": .wrongShape
    default: nil
    }
}
var faults: [(Int, FakeAirtable.Fault)] = []
var standing: FakeAirtable.Fault?
var downloadFaults: [(Int, FakeFiles.Fault)] = []
var options = FakeAirtable.Options()
var port = 0
var logging = false
var projects: [[String: Any]] = FakeAirtable.recordedProjects
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    switch flag {
    case "--port": port = Int(arguments.popFirst() ?? "") ?? 0
    case "--log": logging = true
    case "--oauth":
        // Airtable's OAuth for an integration (`serve`'s sign-in): its client id, and its secret after a colon.
        let given = (arguments.popFirst() ?? "").split(separator: ":", maxSplits: 1).map(String.init)
        var integration = options.oauth ?? FakeOAuthIntegration()
        integration.clientID = given.first ?? integration.clientID
        integration.clientSecret = given.count > 1 ? given[1] : nil
        options.oauth = integration
    case "--oauth-life":
        var integration = options.oauth ?? FakeOAuthIntegration()
        integration.accessSeconds = Double(arguments.popFirst() ?? "") ?? 3600
        options.oauth = integration
    case "--projects": projects = FakeAirtable.generatedProjects(count: Int(arguments.popFirst() ?? "") ?? 0)
    case "--tasks":
        // Five a project, for the projects --projects made (give --projects first).
        let count = Int(arguments.popFirst() ?? "") ?? 0
        options.tasks = FakeAirtable.generatedTasks(count: count, projects: max(1, count / 5))
    case "--recorded": projects = FakeAirtable.recordedProjects
    case "--customised":
        // A base made its owner's own: see FakeAirtable.Options.customisedBase.
        let keep = options
        options = .customisedBase
        options.requestsPerSecond = keep.requestsPerSecond
        options.lockoutSeconds = keep.lockoutSeconds
        options.arrivalDelay = keep.arrivalDelay
        options.compression = keep.compression
        projects = FakeAirtable.customisedProjects
    case "--no-schema": options.grantsSchemaAccess = false
    case "--no-webhooks": options.grantsWebhookScope = false
    case "--not-creator": options.isBaseCreator = false
    case "--latency": options.latency = Double(arguments.popFirst() ?? "") ?? 0
    case "--arrival":
        // NEW,JITTER: seconds a new connection's handshakes take (a client through the fake as a SOCKS5 proxy,
        // http_proxy=socks5://127.0.0.1:PORT, waits them before it sends; a direct client's first request is held back
        // that long instead), and at most this much more for every request before it is counted.
        let parts = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Double($0) }
        options.arrivalDelay = .init(newConnection: parts.first ?? 0, jitter: parts.dropFirst().first ?? 0)
    case "--rate": options.requestsPerSecond = Int(arguments.popFirst() ?? "")
    case "--lockout": options.lockoutSeconds = Double(arguments.popFirst() ?? "") ?? 30
    case "--retry-after": options.sendsRetryAfter = true
    case "--compression":
        let name = arguments.popFirst() ?? ""
        options.compression = name == "none" ? nil : HTTPCompression(rawValue: name)
    case "--person":
        // Another person's token and user id: `--person patTOKEN=usrUSER`.
        let parts = (arguments.popFirst() ?? "").split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { options.persons[parts[0]] = parts[1] }
    case "--rename":
        let parts = (arguments.popFirst() ?? "").split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { options.renamedFields[parts[0]] = parts[1] }
    case "--fault":
        let parts = (arguments.popFirst() ?? "").split(separator: ":").map(String.init)
        guard parts.count == 2, let number = Int(parts[0]), let kind = fault(parts[1]) else {
            FileHandle.standardError.write(Data("fake-airtable: --fault takes N:KIND\n".utf8))
            exit(64)
        }
        faults.append((number, kind))
    case "--always": standing = fault(arguments.popFirst() ?? "")
    case "--download-fault":
        // N:stall (headers, then 30 s of nothing), N:reset (half the file, then a reset), N:403, N:410.
        let parts = (arguments.popFirst() ?? "").split(separator: ":").map(String.init)
        guard parts.count == 2, let number = Int(parts[0]) else {
            FileHandle.standardError.write(Data("fake-airtable: --download-fault takes N:KIND\n".utf8))
            exit(64)
        }
        switch parts[1] {
        case "stall": downloadFaults.append((number, .stallBody(seconds: 30)))
        case "reset": downloadFaults.append((number, .resetMidBody))
        default: downloadFaults.append((number, .status(Int(parts[1]) ?? 410)))
        }
    default:
        FileHandle.standardError.write(Data("fake-airtable: unknown flag \(flag)\n".utf8))
        exit(64)
    }
}
let fake = FakeAirtable(options: options, records: projects)
for (number, kind) in faults { fake.inject(kind, onRequest: number) }
fake.injectOnEveryRequest(standing)
for (number, kind) in downloadFaults { fake.files.inject(kind, onRequest: number) }
let bound = try fake.start(port: port)
// The first line tells a script where to point tracker.
print("http://127.0.0.1:\(bound) \(options.baseID) \(options.token)")
fflush(nil)
signal(SIGTERM) { _ in exit(0) }
signal(SIGINT) { _ in exit(0) }
// With --log, each request answered since the last minute's line, a line each on stderr (method, path, status).
var told = 0
while true {
    sleep(logging ? 1 : 60)
    guard logging else { continue }
    let log = fake.log
    for entry in log.dropFirst(told) {
        FileHandle.standardError.write(
            Data("\(entry.method) \(entry.path) \(entry.status.map(String.init) ?? "-") \(entry.user ?? "-")\n".utf8))
    }
    told = log.count
}
