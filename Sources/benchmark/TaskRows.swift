import FakeAirtable
import Foundation

/// `tracker tasks` over `count` tasks (five a project, so a fifth as many projects) against the listing of `count`
/// projects, run in turn as the digest rows are.
@MainActor func taskRows() throws {
    let (base, environment) = try serve(
        FakeAirtable.generatedProjects(count: count),
        tasks: FakeAirtable.generatedTasks(count: count, projects: count / 5))
    defer { base.stop() }
    let commands: [(String, [String])] = [
        ("list --format ndjson, \(count) projects", ["list", "--format", "ndjson"]),
        // Every open task (two thirds of them), then their projects by id, sorted by the projects' due dates.
        ("tasks (TSV), \(count) tasks", ["tasks"]),
        ("tasks --all --format ndjson, \(count) tasks", ["tasks", "--all", "--format", "ndjson"]),
    ]
    for (_, arguments) in commands { _ = Measure.run(tracker, arguments, environment: environment) }
    var samples = [[Sample]](repeating: [], count: commands.count)
    for _ in 0..<(quick ? 1 : 5) {
        for (index, (_, arguments)) in commands.enumerated() {
            samples[index].append(Measure.run(tracker, arguments, environment: environment))
        }
    }
    let summaries = samples.map(Summary.init(samples:))
    for (index, (name, _)) in commands.enumerated() { record(name, summaries[index]) }
    for index in 1..<commands.count {
        digestRatios.append(
            String(
                format: "%@ / list --format ndjson for %d: wall %.2f×, cpu %.2f× (goal ≤ 1.2×); peak RSS %.1f MiB",
                commands[index].0, count, summaries[index].wall / summaries[0].wall,
                summaries[index].cpu / summaries[0].cpu, summaries[index].peak))
    }
}

/// Round trips of the task commands against a fake that answers every request 300 ms late (the recorded projects and
/// tasks, the token's user assigned some): a command's wall time divided by 0.3 s is the round trips it waited for.
@MainActor func taskTrips() throws {
    let late = 0.3
    let projects = FakeAirtable.recordedProjects
    let mine = "katherineduh+collab23@demo.htable.com"
    let tasks = [
        FakeTaskSpec("Dieline and proofs", projects: ["recPsjO1tkEyBCF7y"], estimate: 2.5, assignee: mine),
        FakeTaskSpec("Final files", projects: ["recPsjO1tkEyBCF7y"], estimate: 1, completed: true, assignee: mine),
        FakeTaskSpec("Kickoff meeting", projects: ["recZ2UzQoJcTTXjws"], estimate: 0.5, assignee: mine),
    ]
    let (fake, environment) = try serve(projects, latency: late, tasks: tasks, user: "usrSdmrY5yGdbcZzg")
    defer { fake.stop() }
    let runs = quick ? 1 : 3
    func row(_ name: String, _ arguments: [String], cold: Bool) throws {
        var samples: [Sample] = []
        var requests: [Int] = []
        for _ in 0..<runs {
            var env = environment
            if cold {
                env["HOME"] = scratch + "/home-\(UUID().uuidString)"
                try FileManager.default.createDirectory(atPath: env["HOME"]!, withIntermediateDirectories: true)
            }
            let before = fake.log.count
            samples.append(Measure.run(tracker, arguments, environment: env))
            requests.append(fake.log.count - before)
        }
        let summary = Summary(samples: samples)
        print(
            String(
                format: "  %@ %10@  %.1f round trips, %d requests",
                name.padding(toLength: 54, withPad: " ", startingAt: 0) as NSString,
                seconds(summary.wall) as NSString, summary.wall / late, requests.max() ?? 0))
    }
    try row("show by name (tasks beside), nothing remembered", ["show", "Coffee packaging"], cold: true)
    try row("show by id (tasks by id after), nothing remembered", ["show", "recPsjO1tkEyBCF7y"], cold: true)
    try row("tasks --mine, nothing remembered", ["tasks", "--mine"], cold: true)
    try row("status, nothing remembered", ["status"], cold: true)
    _ = Measure.run(tracker, ["status"], environment: environment)  // remembers the schema and who the token is
    try row("show by name", ["show", "Coffee packaging"], cold: false)
    try row("show by id", ["show", "recPsjO1tkEyBCF7y"], cold: false)
    try row("tasks --mine", ["tasks", "--mine"], cold: false)
    try row("tasks PROJECT", ["tasks", "Coffee packaging"], cold: false)
    try row("status", ["status"], cold: false)
    try row("task done by name --dry-run", ["task", "done", "Final files", "--dry-run"], cold: false)
}
