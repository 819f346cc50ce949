import FakeAirtable
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The team's copy: machines of their own HOME and runtime directory (as on separate hosts), each running `tracker
/// mcp` against the enforcing fake and one real redis-server; one of them polls, the others read the copy from Redis.
class TeamCopyTestCase: FakeAirtableTestCase {
    var redis: RedisServer!

    /// A machine that keeps the team's copy, refreshed every `every` seconds.
    func teamMachine(every: Int = 2, redisURL: String? = nil) throws -> TrackerProcess {
        try configuredTracker(
            #""redis": "\#(redisURL ?? redis.url())", "teamCopy": true, "teamCopyEvery": \#(every)"#)
    }

    /// A machine of the same base without the team's copy (it changes Airtable as a person elsewhere would), sharing
    /// the team's budget.
    func elsewhere() -> TrackerProcess { tracker(["TRACKER_REDIS_URL": redis.url()]) }

    /// The base: `projects` generated projects with five tasks each, behind the fake's 5 requests a second.
    func startBase(projects: Int = 60) throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.tasks = FakeAirtable.generatedTasks(count: projects * 5, projects: projects)
        try startFake(records: FakeAirtable.generatedProjects(count: projects), options: options)
    }

    /// An assistant's server on `machine`, past the handshake.
    func server(_ machine: TrackerProcess) throws -> MCPSession {
        let session = try MCPSession(machine)
        XCTAssertNotNil(session.call("initialize", MCPTests.initialize)["result"])
        session.notify("notifications/initialized")
        return session
    }

    /// On a base of its own, a server that polls (opened first) and one that reads, each having counted the tasks.
    func pollerAndReader() throws -> (poller: MCPSession, reader: MCPSession) {
        try startBase()
        let poller = try server(try teamMachine(every: 2))
        XCTAssertEqual(taskTotal(poller), openTasks)
        let reader = try server(try teamMachine(every: 2))
        XCTAssertEqual(taskTotal(reader), openTasks)
        return (poller, reader)
    }

    /// How many tasks `server` counts.
    func taskTotal(_ server: MCPSession) -> Int? {
        server.tool("list_tasks", ["limit": 1]).structured["total"] as? Int
    }

    /// The name of the project `id` as `server` lists it (from its copy; `show_project` may read Airtable).
    func name(_ id: String, on server: MCPSession) -> String? {
        let listed = server.tool("list_projects", ["limit": 500]).structured["projects"] as? [[String: Any]]
        return listed?.first { $0["id"] as? String == id }?["name"] as? String
    }

    /// The open tasks of the base (what `list_tasks` counts by default), as the fake holds them.
    var openTasks: Int {
        fake.records(inTable: fake.options.tasksTable).filter {
            ($0["fields"] as? [String: Any])?["Completed"] as? Bool != true
        }.count
    }

    /// Waits up to `seconds` for `server` to show project `id` named `name`; how long it took, or nil.
    func seconds(until name: String, of id: String, on server: MCPSession, within seconds: Double) -> Double? {
        let started = Date()
        while Date().timeIntervalSince(started) < seconds {
            if self.name(id, on: server) == name { return Date().timeIntervalSince(started) }
            usleep(100_000)
        }
        return nil
    }

    /// The requests that read the tasks table whole (a page of a listing with no formula).
    func wholeTaskPages(since index: Int = 0) -> Int {
        fake.recordLog.dropFirst(index).filter {
            $0.method == "GET" && $0.path.contains(fake.options.tasksTable.replacingOccurrences(of: " ", with: "%20"))
                || $0.method == "GET" && $0.path.hasSuffix("tblFAKEtasks00001")
        }.filter { !$0.query.contains("filterByFormula") }.count
    }

    /// The value Redis holds for the copy's header field `field` (the first copy's).
    func headField(_ field: String) throws -> String? {
        guard let head = try redis.keys().map(\.key).first(where: { $0.hasSuffix(":head") }) else { return nil }
        let value = try redis.cli(["HGET", head, field]).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// The key of the copy's table `word` (projects, tasks, clients).
    func tableKey(_ word: String) throws -> String? {
        try redis.keys().map(\.key).first {
            $0.hasSuffix(":" + word) && $0.contains(":copy:") && !$0.contains(":stage:")
        }
    }

    func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        redis = try RedisServer()
    }

    override func tearDown() {
        // A failure shows what the base saw: each request's arrival, status and path.
        if (testRun?.failureCount ?? 0) > 0, let fake {
            let lines = fake.log.map {
                String(format: "%7.3f %@ %@ %@", $0.received, "\($0.status ?? 0)", $0.method, $0.path + "?" + $0.query)
            }
            print("the fake's log:\n" + lines.joined(separator: "\n"))
        }
        // XCTest keeps every test's instance to the end of the run: the server is stopped here, not left to deinit.
        redis = nil
        super.tearDown()
    }
}

final class TeamCopyTests: TeamCopyTestCase {
    /// Servers on four machines opened together read the base once between them, and agree (broken by readers that
    /// read Airtable themselves while a poller builds the copy: four whole reads).
    func testServersOpenedTogetherReadTheBaseOnceAndAgree() throws {
        try startBase(projects: 120)
        let servers = try (0..<4).map { _ in try server(try teamMachine()) }
        let answers = Answers(count: servers.count)
        let group = DispatchGroup()
        for (index, server) in servers.enumerated() {
            DispatchQueue.global().async(group: group) {
                answers.set(index, server.tool("list_tasks", ["limit": 1]).structured["total"] as? Int)
            }
        }
        group.wait()
        let totals = answers.values
        XCTAssertEqual(totals, [Int?](repeating: openTasks, count: servers.count))
        XCTAssertEqual(wholeTaskPages(), 6, "one whole read of 600 tasks (6 pages), not one a server")
        XCTAssertFalse(fake.log.contains { $0.status == 429 })
        for server in servers { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A change made in Airtable reaches every open server within teamCopyEvery + 2 s, read once by the poller.
    func testAChangeInAirtableReachesEveryServerWithinThePollAndTwoSeconds() throws {
        try startBase()
        let servers = try (0..<3).map { _ in try server(try teamMachine(every: 2)) }
        for server in servers { XCTAssertEqual(taskTotal(server), openTasks) }
        let renamed = try elsewhere().run(["update", "rec00000000000007", "--name", "Renamed elsewhere"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        for server in servers {
            let took = seconds(until: "Renamed elsewhere", of: "rec00000000000007", on: server, within: 8)
            XCTAssertNotNil(took, server.stderr)
            // teamCopyEvery + 2 s, with a second's slack for a loaded CI runner (the suites run side by side).
            XCTAssertLessThanOrEqual(took ?? 99, 5)
        }
        for server in servers { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A project added from a shell on another machine shows on an open server at once, long before the next poll
    /// (broken by a write whose answer is not put in the team's copy: the server sees it after 60 s).
    func testAShellsAddIsSeenByAnOpenServerBeforeTheNextPoll() throws {
        try startBase()
        let open = try server(try teamMachine(every: 60))
        XCTAssertEqual(taskTotal(open), openTasks)
        let shell = try teamMachine(every: 60)
        let added = try shell.run(["add", "--name", "Seen at once", "--due", "2026-12-01"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(id.hasPrefix("rec"), added.stdout)
        XCTAssertNotNil(seconds(until: "Seen at once", of: id, on: open, within: 3), open.stderr)
        XCTAssertEqual(open.finish().status, 0)
    }

    /// A shell's deletes reach an open server's copy before the next poll, each in its own table: a project gone from
    /// the listing, a task from the tasks' count (broken by a deletion told to the other table's copy).
    func testAShellsDeletesAreSeenByAnOpenServerBeforeTheNextPoll() throws {
        try startBase()
        let open = try server(try teamMachine(every: 60))
        XCTAssertEqual(
            name("rec00000000000003", on: open),
            fake.records.first { $0["id"] as? String == "rec00000000000003" }
                .flatMap { ($0["fields"] as? [String: Any])?["Name"] as? String })
        XCTAssertEqual(taskTotal(open), openTasks)
        let shell = try teamMachine(every: 60)
        let deleted = try shell.run(["delete", "rec00000000000003", "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        let openTask = try XCTUnwrap(
            fake.records(inTable: fake.options.tasksTable).first {
                ($0["fields"] as? [String: Any])?["Completed"] as? Bool != true
            }?["id"] as? String)
        let before = openTasks
        let taskDeleted = try shell.run(["task", "delete", openTask, "--yes"])
        XCTAssertEqual(taskDeleted.status, 0, taskDeleted.stderr)
        var gone = false
        var counted: Int?
        let started = Date()
        while Date().timeIntervalSince(started) < 3 && !(gone && counted == before - 1) {
            gone = name("rec00000000000003", on: open) == nil
            counted = taskTotal(open)
            if !(gone && counted == before - 1) { usleep(100_000) }
        }
        XCTAssertTrue(gone, "the deleted project is still listed")
        XCTAssertEqual(counted, before - 1, "the deleted task is still counted")
        XCTAssertEqual(open.finish().status, 0)
    }

    /// A poller killed is replaced within its lease by another server, which goes on from the copy's cursor: no whole
    /// read of the tables (broken by a new poller that starts from scratch).
    func testAKilledPollerIsReplacedAndTheCopyGoesOnFromItsCursor() throws {
        let (first, second) = try pollerAndReader()
        let before = fake.recordLog.count
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let renamed = try elsewhere().run(["update", "rec00000000000003", "--name", "After the poller died"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        // The lease (15 s) runs out, the second server takes it and polls.
        XCTAssertNotNil(seconds(until: "After the poller died", of: "rec00000000000003", on: second, within: 22))
        XCTAssertEqual(wholeTaskPages(since: before), 0, "the new poller read the tasks whole")
        XCTAssertEqual(taskTotal(second), openTasks)
        XCTAssertEqual(second.finish().status, 0, second.stderr)
    }

    /// A poller frozen (SIGSTOP) past its lease is replaced; when it wakes it cannot write over the newer copy, and
    /// it follows the new poller as a reader.
    func testAFrozenPollerWakesFencedAndFollows() throws {
        let (frozen, other) = try pollerAndReader()
        let frozenPoller = try headField("poller")
        XCTAssertTrue(
            frozenPoller?.hasSuffix("pid \(frozen.process.processIdentifier)") == true, "\(frozenPoller ?? "")")
        kill(frozen.process.processIdentifier, SIGSTOP)
        XCTAssertTrue(
            try waitFor(25) { try headField("poller")?.hasSuffix("pid \(other.process.processIdentifier)") == true })
        let renamed = try elsewhere().run(["update", "rec00000000000004", "--name", "While it slept"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertNotNil(seconds(until: "While it slept", of: "rec00000000000004", on: other, within: 6))
        kill(frozen.process.processIdentifier, SIGCONT)
        XCTAssertNotNil(seconds(until: "While it slept", of: "rec00000000000004", on: frozen, within: 6), frozen.stderr)
        // Still the other's: the woken one's refresh was refused, and it did not take the lease back.
        usleep(3_000_000)
        XCTAssertTrue(try headField("poller")?.hasSuffix("pid \(other.process.processIdentifier)") == true)
        XCTAssertEqual(name("rec00000000000004", on: other), "While it slept")
        for server in [frozen, other] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A copy older than 3 × teamCopyEvery with nobody polling is never served as it is: the server that opens it
    /// takes the lease and brings it up to date from its cursor first.
    func testAStaleCopyIsBroughtUpToDateBeforeItIsServed() throws {
        try startBase()
        let builder = try server(try teamMachine(every: 2))
        XCTAssertEqual(taskTotal(builder), openTasks)
        XCTAssertEqual(builder.finish().status, 0)
        let renamed = try elsewhere().run(["update", "rec00000000000009", "--name", "Changed while nobody kept it"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        let head = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":head") })
        _ = try redis.cli(["HSET", head, "applied", "1000"])
        let before = fake.recordLog.count
        let late = try server(try teamMachine(every: 2))
        XCTAssertEqual(name("rec00000000000009", on: late), "Changed while nobody kept it")
        XCTAssertEqual(wholeTaskPages(since: before), 0)
        XCTAssertEqual(late.finish().status, 0, late.stderr)
    }
}

/// What several servers answered at once, gathered from their threads.
final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int?]

    init(count: Int) { answers = [Int?](repeating: nil, count: count) }

    func set(_ index: Int, _ value: Int?) {
        lock.lock()
        answers[index] = value
        lock.unlock()
    }

    var values: [Int?] {
        lock.lock()
        defer { lock.unlock() }
        return answers
    }
}

/// The board with the team's copy, in tmux: its header says so, and what another machine changes is drawn without a
/// key, long before the board's own refresh.
final class TeamCopyBoardTests: TeamCopyTestCase {
    func testTheBoardNamesTheTeamsCopyAndRedrawsAChangeWithoutAKey() throws {
        var (options, records) = FakeAirtable.demo(today: BoardTests.today)
        options.requestsPerSecond = 5
        fake = FakeAirtable(options: options, records: records)
        try fake.start()
        let board = try BoardSession(try teamMachine(every: 2), ["board", "--every", "300"], width: 160, height: 40)
        defer { board.close() }
        let first = board.wait(for: "the team's copy")
        XCTAssertTrue(first.contains("the team's copy (this process polls)"), first)
        XCTAssertTrue(first.contains("Coffee packaging"), first)
        // Another machine's shell renames it through the team's copy; a person in Airtable renames another.
        let shell = try teamMachine(every: 2)
        let renamed = try shell.run(["update", "Coffee packaging", "--name", "Coffee tins"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertTrue(board.wait(for: "Coffee tins", timeout: 3).contains("Coffee tins"), board.screen)
        // Changed in Airtable by someone without the team's copy: the poller (the board itself) reads it within
        // teamCopyEvery + 2 s, and the board draws it without a key (its own refresh is 300 s away).
        let edited = try elsewhere().run(["update", "Coffee tins", "--name", "Coffee cans"])
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertTrue(board.wait(for: "Coffee cans", timeout: 4.5).contains("Coffee cans"), board.screen)
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }
}

extension TeamCopyBoardTests {
    /// The first board of a team (the one that reads the base for everyone) shows its first screen from the first
    /// page, as a board alone does, not once the tables are read whole (broken by a poller that does not pass its
    /// pages on: the first screen waits for 37 pages at 5 a second).
    func testTheFirstBoardsFirstScreenComesFromTheFirstPage() throws {
        try startBase(projects: 600)
        let started = Date()
        let board = try BoardSession(try teamMachine(every: 2), ["board", "--every", "300"], width: 160, height: 40)
        defer { board.close() }
        let first = board.wait(for: "Project 0", timeout: 10)
        let shown = Date().timeIntervalSince(started)
        XCTAssertTrue(first.contains("Project 0"), first)
        // The whole read is 37 pages at 5 a second (7.4 s); the first page comes after the schema's read.
        XCTAssertLessThan(shown, 4, "the first screen waited for the whole read")
        let whole = board.wait(for: "the team's copy", timeout: 20)
        XCTAssertTrue(whole.contains("the team's copy (this process polls)"), whole)
        XCTAssertEqual(wholeTaskPages(), 30, "one whole read of the tasks")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }
}

extension TeamCopyBoardTests {
    /// A polling board ended by SIGTERM (a closed session, `kill`) gives the terminal back and lets the team's lease go
    /// at once, as `q` does, so the next process polls now, not when the lease runs out 15 s later, and its board says
    /// so (broken by the terminal's handler dying of the signal without going on to tracker's own: the lease stays).
    func testABoardEndedBySIGTERMLetsTheLeaseGoAndGivesTheTerminalBack() throws {
        try startBase(projects: 60)
        let board = try BoardSession(try teamMachine(every: 2), ["board", "--every", "300"], width: 160, height: 40)
        defer { board.close() }
        XCTAssertTrue(board.wait(for: "this process polls").contains("the team's copy (this process polls)"))
        let reader = try BoardSession(try teamMachine(every: 2), ["board", "--every", "300"], width: 160, height: 40)
        defer { reader.close() }
        XCTAssertTrue(reader.wait(for: "the team's copy").contains("the team's copy ·"), reader.screen)
        func leases() throws -> [String] { try redis.keys().map(\.key).filter { $0.hasSuffix(":lease") } }
        XCTAssertEqual(try leases().count, 1, "the board holds the lease")
        let pid = try XCTUnwrap(board.trackerPID)
        kill(pid, SIGTERM)
        XCTAssertEqual(board.status(), 143)
        XCTAssertTrue(board.bytes.hasSuffix("\u{1B}[?1049l"), "the terminal is given back last")
        // The other board takes the lease at its next round (within a second) and its header says so.
        let taken = reader.wait(for: "this process polls", timeout: 4)
        XCTAssertTrue(taken.contains("the team's copy (this process polls)"), taken)
        reader.press("q")
        XCTAssertEqual(reader.status(), 0)
    }
}
