import FakeAirtable
import Foundation

// Serves the fake Airtable on loopback for manual runs and the benchmark:
//   fake-airtable [--port N] [--projects N | --recorded] [--rate N] [--lockout S] [--retry-after]
var options = FakeAirtable.Options()
var port = 0
var projects: [[String: Any]] = FakeAirtable.recordedProjects
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    switch flag {
    case "--port": port = Int(arguments.popFirst() ?? "") ?? 0
    case "--projects": projects = FakeAirtable.generatedProjects(count: Int(arguments.popFirst() ?? "") ?? 0)
    case "--recorded": projects = FakeAirtable.recordedProjects
    case "--rate": options.requestsPerSecond = Int(arguments.popFirst() ?? "")
    case "--lockout": options.lockoutSeconds = Double(arguments.popFirst() ?? "") ?? 30
    case "--retry-after": options.sendsRetryAfter = true
    default:
        FileHandle.standardError.write(Data("fake-airtable: unknown flag \(flag)\n".utf8))
        exit(64)
    }
}
let fake = FakeAirtable(options: options, records: projects)
let bound = try fake.start(port: port)
// The first line tells a script where to point tracker.
print("http://127.0.0.1:\(bound) \(options.baseID) \(options.token)")
fflush(nil)
signal(SIGTERM) { _ in exit(0) }
signal(SIGINT) { _ in exit(0) }
while true { sleep(60) }
