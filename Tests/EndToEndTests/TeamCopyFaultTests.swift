import FakeAirtable
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A copy tracker cannot vouch for is never served: the reader says why in one line, answers from Airtable as it would
/// alone, and the poller reads the copy whole again. Junk in Redis is a fault, never a crash.
final class TeamCopyFaultTests: TeamCopyTestCase {
    /// Asserts `server` said, in one line on stderr, that the team's copy is not used and why.
    private func assertSaid(_ server: MCPSession, _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        let said = "tracker: warning: the team's copy in Redis is not used: \(why); reading Airtable"
        _ = waitFor(3) { server.stderr.contains(said) }
        XCTAssertTrue(server.stderr.contains(said), server.stderr, file: file, line: line)
    }

    private func requests(during body: () throws -> Void) rethrows -> Int {
        let before = fake.recordLog.count
        try body()
        return fake.recordLog.count - before
    }

    /// Redis flushed under an open reader: it says so once, answers from Airtable, and reads the copy again from Redis
    /// once the poller rebuilt it (broken by a reader that trusts what it loaded before the flush forever, or one that
    /// serves an empty copy).
    func testAFlushedCopyIsNotServedAndIsRebuilt() throws {
        let (poller, reader) = try pollerAndReader()
        kill(poller.process.processIdentifier, SIGSTOP)
        let head = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":head") })
        _ = try redis.cli(["FLUSHALL"])
        // The poller's lease outlives the flush here (as when only the copy's keys are evicted): the reader stays a
        // reader while it is asked, and cannot take over for 4 s.
        _ = try redis.cli(["SET", String(head.dropLast(":head".count)) + ":lease", "another", "PX", "4000"])
        // A flush forgets the budget's schedule too: the update waits out the second the others' requests went in.
        usleep(1_100_000)
        let renamed = try elsewhere().run(["update", "rec00000000000005", "--name", "After the flush"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        var spent = 0
        spent = requests { XCTAssertEqual(name("rec00000000000005", on: reader), "After the flush") }
        XCTAssertGreaterThan(spent, 0, "answered from Airtable")
        _ = waitFor(3) { reader.stderr.contains("team's copy") }
        let warnings = reader.stderr.split(separator: "\n").filter { $0.contains("team's copy") }
        XCTAssertEqual(
            warnings,
            [
                "tracker: warning: the team's copy in Redis is not used: the copy is missing from Redis (flushed, or its header evicted); reading Airtable"
            ])
        kill(poller.process.processIdentifier, SIGCONT)
        XCTAssertTrue(try waitFor(10) { try headField("generation") != nil })
        usleep(1_500_000)
        // A first call after nobody looked brings the poller back to its pace (its one refresh); the next is the copy's.
        _ = taskTotal(reader)
        spent = requests { XCTAssertEqual(taskTotal(reader), openTasks) }
        XCTAssertEqual(spent, 0, "served from the rebuilt copy")
        XCTAssertFalse(fake.log.contains { $0.status == 429 })
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A table's key deleted (as eviction would) under an open reader: short of records, not served.
    func testAKeyDeletedMidRunIsShortAndNotServed() throws {
        let (poller, reader) = try pollerAndReader()
        kill(poller.process.processIdentifier, SIGSTOP)
        _ = try redis.cli(["DEL", try XCTUnwrap(try tableKey("tasks"))])
        XCTAssertEqual(taskTotal(reader), openTasks)
        assertSaid(reader, "it is short of records (tasks: 0 of 300; a key was evicted or deleted)")
        kill(poller.process.processIdentifier, SIGCONT)
        // The poller's next refresh finds it unsound and reads it whole again.
        XCTAssertTrue(
            try waitFor(10) {
                guard let key = try tableKey("tasks") else { return false }
                return try redis.cli(["HLEN", key]).hasPrefix("300")
            })
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A value that is not a record: a server opening on it says so, answers from Airtable without a crash, and the
    /// copy is read whole again so the next one opens from Redis (broken by a reader that skips junk silently).
    func testJunkInTheCopyIsAFaultNeverACrash() throws {
        let (poller, reader) = try pollerAndReader()
        XCTAssertEqual(reader.finish().status, 0)
        let projects = try XCTUnwrap(try tableKey("projects"))
        _ = try redis.cli(["HSET", projects, "rec00000000000002", "not a record"])
        let opening = try server(try teamMachine(every: 2))
        XCTAssertEqual(taskTotal(opening), openTasks)
        assertSaid(opening, "it holds a value that is not a record (projects, rec00000000000002)")
        XCTAssertEqual(opening.finish().status, 0, opening.stderr)
        // Marked distrusted: the poller reads it whole; the value is a record again.
        XCTAssertTrue(
            try waitFor(10) { try !redis.cli(["HGET", projects, "rec00000000000002"]).contains("not a record") })
        usleep(1_000_000)
        let next = try server(try teamMachine(every: 2))
        let spent = requests { XCTAssertEqual(taskTotal(next), openTasks) }
        XCTAssertEqual(spent, 0, "opened from Redis")
        XCTAssertFalse(next.stderr.contains("warning"), next.stderr)
        for server in [poller, next] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A header that names another layout is never served (a copy of other fields' names must not be read as this).
    func testACopyOfAnotherLayoutIsNotServed() throws {
        let (poller, reader) = try pollerAndReader()
        XCTAssertEqual(reader.finish().status, 0)
        kill(poller.process.processIdentifier, SIGSTOP)
        defer { kill(poller.process.processIdentifier, SIGCONT) }
        let head = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":head") })
        _ = try redis.cli(["HSET", head, "layout", "0123456789abcdef"])
        let opening = try server(try teamMachine(every: 2))
        XCTAssertEqual(taskTotal(opening), openTasks)
        assertSaid(opening, "its header names another layout of the tables")
        kill(poller.process.processIdentifier, SIGCONT)
        for server in [poller, opening] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A team's Redis that is down leaves the server as it is without the team's copy: its own copy, the engine's one
    /// warning, the right answers.
    func testARedisThatIsDownLeavesTheServerAsToday() throws {
        try startBase()
        redis.stop()
        let alone = try server(try teamMachine(every: 2, redisURL: redis.url()))
        XCTAssertEqual(taskTotal(alone), openTasks)
        XCTAssertEqual(taskTotal(alone), openTasks)
        XCTAssertFalse(alone.stderr.contains("team's copy"), alone.stderr)
        XCTAssertTrue(alone.stderr.contains("warning: the Redis at"), alone.stderr)
        XCTAssertEqual(alone.finish().status, 0, alone.stderr)
    }
}

/// What the team's copy shows: doctor's report, one-shot reads within `--max-age`, a cluster.
final class TeamCopyReportTests: TeamCopyTestCase {
    func testDoctorReportsTheCopyAndOneShotReadsUseItWithinMaxAge() throws {
        try startBase()
        let machine = try teamMachine(every: 2)
        let off = try elsewhere().run(["doctor"])
        XCTAssertTrue(off.stdout.contains("the team's copy is off"), off.stdout)
        let none = try machine.run(["doctor"])
        XCTAssertTrue(none.stdout.contains("none is kept yet"), none.stdout)
        let open = try server(machine)
        XCTAssertEqual(taskTotal(open), openTasks)
        let doctor = try machine.run(["doctor"])
        XCTAssertTrue(
            doctor.stdout.contains("the team's copy is on (every 2 s): every field: 60 projects, 300 tasks"),
            doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains(" s old, version "), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("polled by "), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains(" MiB"), doctor.stdout)
        // A one-shot list within --max-age sends nothing; without it, it reads Airtable as always.
        var before = fake.recordLog.count
        let fresh = try machine.run(["list", "--max-age", "60"])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertEqual(fresh.lines.count, 60)
        XCTAssertEqual(fake.recordLog.count - before, 0, "answered from the team's copy")
        before = fake.recordLog.count
        let plain = try machine.run(["list"])
        XCTAssertEqual(plain.stdout, fresh.stdout)
        XCTAssertGreaterThan(fake.recordLog.count - before, 0)
        let refused = try machine.run(["add", "--max-age", "5", "--name", "x"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.hasPrefix("tracker: --max-age is for the commands that only read"), refused.stderr)
        XCTAssertEqual(open.finish().status, 0)
        // Nobody polls now: an age past --max-age reads Airtable again, though a write went into the copy since (a
        // write's answer never makes the copy look fresh).
        usleep(2_100_000)
        let added = try machine.run(["add", "--name", "Written while nobody polls", "--due", "2026-12-24"])
        XCTAssertEqual(added.status, 0, added.stderr)
        before = fake.recordLog.count
        let stale = try machine.run(["list", "--max-age", "1"])
        XCTAssertEqual(stale.lines.count, 61, stale.stdout)
        XCTAssertGreaterThan(fake.recordLog.count - before, 0, "served a copy nobody polls because a write went in")
    }

    /// A Redis Cluster named by a node that does not hold the base's slot works as one Redis: the second server opens
    /// from the copy with no request to Airtable.
    func testTheTeamsCopyThroughARedisCluster() throws {
        let cluster = try RedisCluster()
        try startBase()
        let base = "tracker:{\(fake.options.baseID)}:copy:x"
        let owner = try cluster.owner(of: base)
        let seed = try XCTUnwrap(cluster.ports.first { $0 != owner })
        let url = "redis://127.0.0.1:\(seed)"
        let first = try server(try teamMachine(every: 2, redisURL: url))
        XCTAssertEqual(taskTotal(first), openTasks)
        let before = fake.recordLog.count
        let second = try server(try teamMachine(every: 2, redisURL: url))
        XCTAssertEqual(taskTotal(second), openTasks)
        XCTAssertEqual(fake.recordLog.count - before, 0, "\(fake.recordLog.dropFirst(before).map(\.path))")
        XCTAssertFalse(second.stderr.contains("warning"), second.stderr)
        XCTAssertTrue(try cluster.keys(on: owner).contains { $0.contains(":copy:") && $0.hasSuffix(":head") })
        for server in [first, second] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }
}
