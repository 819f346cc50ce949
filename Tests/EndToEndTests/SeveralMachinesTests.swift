import FakeAirtable
import Foundation
import XCTest

/// Several machines, one base: tracker processes with their own HOME and runtime directory each (as on separate
/// hosts) sharing the base's budget, its 429 hold and the write locks through one Redis.
final class SeveralMachinesTests: FakeAirtableTestCase {
    /// A "machine": a tracker of its own HOME and runtime directory, pointed at the fake and at `redis` when given.
    private func machine(_ redis: String?, _ extra: [String: String] = [:]) -> TrackerProcess {
        var environment = extra
        if let redis { environment["TRACKER_REDIS_URL"] = redis }
        return tracker(environment)
    }

    /// The records of `table` (the projects by default) named `name`.
    private func named(_ name: String, in table: String? = nil) -> [[String: Any]] {
        fake.records(inTable: table ?? fake.options.table).filter {
            ($0["fields"] as? [String: Any])?["Name"] as? String == name
        }
    }

    private func assertUnderTheLimit(file: StaticString = #filePath, line: UInt = #line) {
        let statuses = fake.recordLog.map(\.status)
        XCTAssertFalse(statuses.contains(429), "\(statuses.filter { $0 == 429 }.count) × 429", file: file, line: line)
        let times = fake.log.map(\.received).sorted()
        for (index, time) in times.enumerated() {
            XCTAssertLessThanOrEqual(times[index...].prefix { $0 < time + 1 }.count, 5, file: file, line: line)
        }
    }

    /// The slower pace after a 429 is the team's: a machine that never saw the 429 says so in doctor (the schedule
    /// in Redis, on Redis's clock), and a machine without the team's Redis does not.
    func testAnotherMachinesDoctorSaysThePaceIsSlowedAfterA429() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.lockoutSeconds = 1
        try startFake(options: options)
        let first = machine(redis.url())
        XCTAssertEqual(try first.run(["list"]).status, 0)
        fake.inject(.rateLimited(retryAfter: "1"), onNextRequestWithMethod: "GET")
        XCTAssertEqual(try first.run(["list"]).status, 0)
        let pace = { (machine: TrackerProcess) throws -> String in
            try machine.run(["doctor"]).lines.first { $0.contains("pace 5 requests") } ?? ""
        }
        let other = try pace(machine(redis.url()))
        XCTAssertTrue(other.contains("; now slowed to "), other)
        XCTAssertTrue(other.contains(" a second after a 429 (5 set), full again in "), other)
        XCTAssertEqual(try pace(machine(nil)), "ok        pace 5 requests a second, within Airtable's 5")
    }

    func testMachinesSharingARedisStayUnderTheBasesLimit() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        try startFake(records: FakeAirtable.generatedProjects(count: 300), options: options)
        // Three machines, three listings of three pages each, all at once: 27 requests that the base takes at 5 a second.
        let machines = (0..<3).map { _ in machine(redis.url()) }
        let results = try runTogether(machines.flatMap { machine in (0..<3).map { _ in (machine, ["list"]) } })
        for result in results {
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.lines.count, 300)
            XCTAssertEqual(result.stderr, "")
        }
        assertUnderTheLimit()
        // Every process drew on the one budget, which doctor counts.
        let doctor = try machines[0].run(["doctor", "--json"])
        XCTAssertEqual(doctor.status, 0, doctor.stderr)
        XCTAssertTrue(
            doctor.stdout.contains("10 tracker processes drew on this base's budget in the last minute"),
            "the nine listings and doctor: \(doctor.stdout)")
    }

    func testRacingIfAbsentOnSeveralMachinesMakesOneProject() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        // Answers 200 ms late, as across an ocean: the window between "absent" and "created" is wide.
        options.latency = 0.2
        try startFake(options: options)
        let name = "Weekly review 2026-W48"
        let machines = (0..<4).map { _ in machine(redis.url()) }
        let arguments = ["add", "-q", "--if-absent", "--name", name, "--due", "2026-12-04"]
        let results = try runTogether(machines.flatMap { [($0, arguments), ($0, arguments)] })
        for result in results { XCTAssertEqual(result.status, 0, result.stderr) }
        XCTAssertEqual(named(name).count, 1)
        XCTAssertEqual(Set(results.map(\.stdout)).count, 1, "every run prints the one project's id")
        // The lock is gone once the writes are done: nothing is left to block the next run.
        XCTAssertFalse(try redis.keys().contains { $0.key.contains(":lock:") })
    }

    func testRacingTaskAddOnSeveralMachinesMakesOneTask() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.latency = 0.2
        options.tasks = []
        try startFake(options: options)
        let machines = (0..<3).map { _ in machine(redis.url()) }
        let arguments = ["task", "add", "Coffee packaging", "Print proofs", "--if-absent", "-q"]
        let results = try runTogether(machines.flatMap { [($0, arguments), ($0, arguments)] })
        for result in results { XCTAssertEqual(result.status, 0, result.stderr) }
        XCTAssertEqual(named("Print proofs", in: "Tasks").count, 1)
    }

    func testA429OnOneMachineHoldsBackTheOthers() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.lockoutSeconds = 3
        options.sendsRetryAfter = true
        try startFake(options: options)
        let first = machine(redis.url()), second = machine(redis.url())
        // Each machine has read the schema already, so each listing below is one request.
        for machine in [first, second] { XCTAssertEqual(try machine.run(["list"]).status, 0) }
        fake.inject(.rateLimited(retryAfter: "3"), onRequest: 1)
        let (process, out, _) = try first.start(["list"])
        // Once the first machine has been refused, the second starts: it must wait out the same hold.
        let deadline = Date().addingTimeInterval(10)
        while !fake.recordLog.contains(where: { $0.status == 429 }) && Date() < deadline { usleep(10_000) }
        let other = try second.run(["list"])
        _ = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertEqual(fake.log.filter { $0.status == 429 }.count, 1, "\(fake.log.map(\.status))")
    }

    func testARedisThatGoesAwayLeavesPacingToTheMachineAndRefusesTheLock() throws {
        let redis = try RedisServer()
        try startFake()
        let laptop = machine(redis.url())
        XCTAssertEqual(try laptop.run(["list"]).stderr, "")
        redis.stop()
        // Pacing falls back, with one line naming the Redis and why; the command itself succeeds.
        let listed = try laptop.run(["list"])
        XCTAssertEqual(listed.status, 0)
        XCTAssertEqual(listed.lines.count, 16)
        let warnings = listed.stderr.split(separator: "\n")
        XCTAssertEqual(warnings.count, 1, listed.stderr)
        XCTAssertTrue(
            warnings.first?.hasPrefix("tracker: warning: the Redis at redis://127.0.0.1:\(redis.port)") == true,
            listed.stderr)
        XCTAssertTrue(listed.stderr.contains("connection refused"), listed.stderr)
        // A write that needs the team's lock is 75 with nothing written.
        let before = fake.records.count
        let add = try laptop.run(["add", "--if-absent", "--name", "Weekly review", "--due", "2026-12-04"])
        // The lookup that found nothing was paced on this machine (its one warning line); then the lock is refused.
        XCTAssertEqual(add.status, 75, add.stderr)
        XCTAssertTrue(add.stderr.contains("\ntracker: cannot take the team's lock"), add.stderr)
        XCTAssertTrue(add.stderr.contains("nothing was written"), add.stderr)
        XCTAssertEqual(fake.records.count, before)
        XCTAssertFalse(fake.recordLog.contains { $0.method == "POST" })
        // Back again: used from the next command, which leaves its keys there.
        try redis.start()
        let again = try laptop.run(["list"])
        XCTAssertEqual(again.stderr, "")
        XCTAssertTrue(try redis.keys().contains { $0.key.contains(":budget:") })
    }

    func testALeaseLostBeforeTheWriteGoesOutWritesNothing() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        // The window in which Redis forgets: the look for the name under the lock (wide enough for a busy CI).
        options.latency = 1.5
        try startFake(options: options)
        let laptop = machine(redis.url())
        let (process, _, err) = try laptop.start(["add", "--if-absent", "--name", "Lost lease", "--due", "2026-12-04"])
        // While it looks for the name under the lock, Redis forgets everything (a restart without persistence).
        let deadline = Date().addingTimeInterval(10)
        while !(try redis.keys().contains { $0.key.contains(":lock:") }) && Date() < deadline { usleep(5_000) }
        try redis.cli(["FLUSHALL"])
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 75, stderr)
        XCTAssertTrue(stderr.hasPrefix("tracker: the team's lock for adding \"Lost lease\" was lost"), stderr)
        XCTAssertEqual(named("Lost lease").count, 0)
        XCTAssertEqual(fake.records.count, 16)
    }

    /// The lease is confirmed right before each attempt of the create, after any 429's hold: a lock lost while the
    /// create waited out a 429 writes nothing, for `add` and for `task add` alike (before, it was confirmed once,
    /// before the wait, and the create went out unguarded).
    func testALeaseLostWhileTheCreateWaitsOutA429WritesNothing() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.lockoutSeconds = 2
        try startFake(options: options)
        let laptop = machine(redis.url())
        for (words, name, table) in [
            (["add", "--if-absent", "--name", "Held through a 429", "--due", "2026-12-04"], "Held through a 429", nil),
            (
                ["task", "add", "CMCA brand identity", "Proofs held through a 429", "--if-absent"],
                "Proofs held through a 429", "Tasks"
            ),
        ] as [([String], String, String?)] {
            func limitedCreates() -> Int { fake.recordLog.filter { $0.status == 429 && $0.method == "POST" }.count }
            let before = limitedCreates()
            fake.inject(.rateLimited(retryAfter: "2"), onNextRequestWithMethod: "POST")
            let (process, _, err) = try laptop.start(words)
            let deadline = Date().addingTimeInterval(20)
            while limitedCreates() == before && Date() < deadline { usleep(5_000) }
            // While it waits out the hold, Redis forgets everything (a restart without persistence).
            try redis.cli(["FLUSHALL"])
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 75, "\(words): \(stderr)")
            XCTAssertTrue(stderr.contains("the team's lock for adding \"\(name)\" was lost"), stderr)
            XCTAssertEqual(named(name, in: table).count, 0, "nothing was written")
        }
    }

    /// `"redisPasswordCommand"` supplies the password, so the address (in a crontab, the file) holds none; a command
    /// that fails is 78 naming it; an address that also carries a password is refused.
    func testTheRedisPasswordComesFromACommand() throws {
        let password = "from-a-secret-store-123"
        let redis = try RedisServer(password: password)
        try startFake()
        let good = try configuredTracker(
            #""redis": "redis://127.0.0.1:\#(redis.port)", "redisPasswordCommand": ["printf", "%s\\n", "\#(password)"]"#
        )
        let listed = try good.run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stderr, "", "authenticated: no fallback warning")
        XCTAssertTrue(try redis.keys().contains { $0.key.contains(":budget:") })
        let failing = try configuredTracker(
            #""redis": "redis://127.0.0.1:\#(redis.port)", "redisPasswordCommand": ["false"]"#)
        assertFailure(try failing.run(["list"]), status: 78, "redisPasswordCommand false exited with status 1")
        let both = try configuredTracker(
            #""redis": "\#(redis.url())", "redisPasswordCommand": ["printf", "x"]"#)
        assertFailure(try both.run(["list"]), status: 78, "carries a password")
    }

    /// With the team's Redis down, `--if-absent` of a record already there needs no lock: it says so and succeeds, for
    /// `add` and `task add` alike. A create is refused (75) with the way to run it on this machine alone, and an
    /// empty TRACKER_REDIS_URL does that, whatever the file says.
    func testIfAbsentLooksFirstAndTakesTheLockOnlyToCreate() throws {
        let redis = try RedisServer()
        try startFake()
        let laptop = try configuredTracker(#""redis": "\#(redis.url())""#)
        XCTAssertEqual(
            try laptop.run(["add", "--if-absent", "--name", "Weekly review", "--due", "2026-12-04"]).status, 0)
        XCTAssertEqual(try laptop.run(["task", "add", "Weekly review", "Agenda", "--if-absent"]).status, 0)
        redis.stop()
        let again = try laptop.run(["add", "--if-absent", "--name", "Weekly review", "--due", "2026-12-04"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.lines.count, 1, "the existing project's id")
        let task = try laptop.run(["task", "add", "Weekly review", "Agenda", "--if-absent"])
        XCTAssertEqual(task.status, 0, task.stderr)
        XCTAssertEqual(named("Weekly review").count, 1)
        XCTAssertEqual(named("Agenda", in: "Tasks").count, 1)
        let new = try laptop.run(["add", "--if-absent", "--name", "Monthly review", "--due", "2026-12-04"])
        XCTAssertEqual(new.status, 75, new.stderr)
        XCTAssertTrue(new.stderr.contains("\ntracker: cannot take the team's lock"), new.stderr)
        XCTAssertTrue(new.stderr.contains("TRACKER_REDIS_URL= tracker"), new.stderr)
        var alone = laptop
        alone.environment["TRACKER_REDIS_URL"] = ""
        let made = try alone.run(["add", "--if-absent", "--name", "Monthly review", "--due", "2026-12-04"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.stderr, "", "no Redis tried, no warning")
        XCTAssertEqual(named("Monthly review").count, 1)
    }

    /// A machine configured with the table's name and one with its id (`tbl…`) take the same team lock: the lock
    /// names the table by its id once the schema told it.
    func testTheTablesNameAndItsIdTakeTheSameLock() throws {
        let redis = try RedisServer()
        try startFake()
        func lockKeyWhileAdding(_ machine: TrackerProcess) throws -> String? {
            fake.inject(.delay(seconds: 1.5), onNextRequestWithMethod: "POST")
            let (process, _, err) = try machine.start(["add", "--if-absent", "--name", "Held", "--due", "2026-12-04"])
            var key: String?
            let deadline = Date().addingTimeInterval(10)
            while key == nil && Date() < deadline {
                key = try redis.keys().map(\.key).first { $0.contains(":lock:") }
                if key == nil { usleep(5_000) }
            }
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, stderr)
            return key
        }
        let byName = machine(redis.url())
        let byID = machine(redis.url(), ["AIRTABLE_TABLE": fake.options.tableID])
        let first = try XCTUnwrap(try lockKeyWhileAdding(byName))
        XCTAssertEqual(try byName.run(["delete", "Held", "--yes"]).status, 0)
        let second = try XCTUnwrap(try lockKeyWhileAdding(byID))
        XCTAssertEqual(first, second)
    }

    func testAPasswordProtectedRedisAndAWrongPassword() throws {
        let password = "s3cret-redis-password-XYZ"
        let redis = try RedisServer(password: password)
        try startFake()
        let right = try machine(redis.url()).run(["list"])
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertEqual(right.stderr, "")
        XCTAssertTrue(try redis.keys().contains { $0.key.contains(":budget:") })
        let wrongPassword = "wrong-password-ABCDEFG"
        let wrong = try machine(redis.url(password: wrongPassword)).run(["list", "--verbose"])
        assertFailure(wrong, status: 78, "the Redis at redis://127.0.0.1:\(redis.port) refused the password (WRONGPASS")
        XCTAssertFalse(wrong.stderr.contains(wrongPassword), wrong.stderr)
        XCTAssertFalse(fake.recordLog.count > 1, "nothing is sent to Airtable unpaced")
        // doctor blames the Redis alone: the Airtable checks run paced on this machine and pass on their own.
        let doctor = try machine(redis.url(password: wrongPassword)).run(["doctor"])
        XCTAssertEqual(doctor.status, 78, doctor.stdout + doctor.stderr)
        XCTAssertTrue(doctor.stdout.contains("token accepted"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("refused the password (WRONGPASS"), doctor.stdout)
        XCTAssertFalse(doctor.stdout.contains("schema.bases:read"), doctor.stdout)
        // The password never shows, in a warning either.
        redis.stop()
        let down = try machine(redis.url()).run(["list", "--verbose"])
        XCTAssertEqual(down.status, 0)
        XCTAssertFalse(down.stderr.contains(password), down.stderr)
    }

    func testTLSIsVerifiedAgainstTheCAGivenAndRefusedWithoutIt() throws {
        let redis = try RedisServer(tls: true)
        try startFake()
        let trusted = try machine(redis.url(), ["TRACKER_REDIS_CA": redis.tls!.authority]).run(["list"])
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        XCTAssertEqual(trusted.stderr, "")
        XCTAssertTrue(try redis.keys().contains { $0.key.contains(":budget:") })
        try redis.cli(["FLUSHALL"])
        // Without the CA the certificate is not trusted: nothing is sent to it, pacing stays on the machine.
        let untrusted = machine(redis.url())
        let listed = try untrusted.run(["list"])
        XCTAssertEqual(listed.status, 0)
        XCTAssertTrue(listed.stderr.contains("certificate is not trusted"), listed.stderr)
        XCTAssertEqual(try redis.keys().count, 0)
        let add = try untrusted.run(["add", "--if-absent", "--name", "Unverified", "--due", "2026-12-04"])
        // The lookup, paced on this machine, warns once; then the lock is refused.
        XCTAssertEqual(add.status, 75, add.stderr)
        XCTAssertTrue(add.stderr.contains("\ntracker: cannot take the team's lock"), add.stderr)
        XCTAssertEqual(named("Unverified").count, 0)
        XCTAssertEqual(fake.records.count, 16)
    }

    /// `rediss://` at a Redis without TLS says the handshake failed, not that nothing connected.
    func testATLSAddressAtAPlainRedisSaysTheHandshakeFailed() throws {
        let redis = try RedisServer()
        try startFake()
        let listed = try machine("rediss://127.0.0.1:\(redis.port)").run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stderr.contains("(the TLS handshake failed"), listed.stderr)
    }

    func testAUnixSocketRedis() throws {
        let redis = try RedisServer()
        try startFake()
        let result = try machine("unix://\(redis.socketPath)").run(["list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(try redis.keys().contains { $0.key.contains(":budget:") })
    }

    func testMachinesSharingARedisShareTheBasesOneWebhook() throws {
        let redis = try RedisServer()
        try startFake()
        let (first, second) = (machine(redis.url()), machine(redis.url()))
        XCTAssertEqual(try first.run(["changes"]).status, 0)
        let hook = try XCTUnwrap(fake.webhookIDs.first)
        let keys = try redis.keys().filter { $0.key.contains(":webhook:") }
        XCTAssertEqual(keys.count, 1, "\(keys)")
        XCTAssertEqual(try redis.cli(["GET", keys[0].key]).trimmingCharacters(in: .whitespacesAndNewlines), hook)
        XCTAssertGreaterThan(keys[0].ttl, 6 * 86_400_000, "as long as the hook lives")
        XCTAssertLessThanOrEqual(keys[0].ttl, 7 * 86_400_000)
        // Another machine's runs find it through the Redis and never make a second.
        XCTAssertEqual(try second.run(["changes"]).status, 0)
        XCTAssertEqual(try second.run(["update", "Coffee packaging", "--notes", "seen"]).status, 0)
        XCTAssertEqual(try second.run(["changes"]).lines, ["Coffee packaging: notes changed"])
        XCTAssertEqual(fake.webhookIDs, [hook])
    }

    func testKeysHoldNoSecretAndAllExpire() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.latency = 0.3
        try startFake(options: options)
        let laptop = machine(redis.url())
        let name = "Secret project name"
        let (process, _, _) = try laptop.start(["add", "--if-absent", "--name", name, "--due", "2026-12-04"])
        // Read the keys while the lock is held, and after.
        let deadline = Date().addingTimeInterval(10)
        var seen: [(key: String, ttl: Int)] = []
        while Date() < deadline {
            seen = try redis.keys()
            if seen.contains(where: { $0.key.contains(":lock:") }) { break }
            usleep(5_000)
        }
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(seen.contains { $0.key.contains(":lock:") }, "\(seen)")
        seen += try redis.keys()
        XCTAssertGreaterThanOrEqual(Set(seen.map(\.key)).count, 4, "\(seen)")
        for (key, ttl) in seen {
            XCTAssertTrue(key.hasPrefix("tracker:{"), key)
            XCTAssertGreaterThan(ttl, 0, "\(key) has no time to live")
            // The month's count lives past its month (40 days), so a month is read whole; the journal 30 days past
            // its last entry and a day; everything else minutes.
            let isJournal = key.contains(":journal:")
            let longest = key.contains(":usage:") ? 40 * 86_400_000 : isJournal ? 31 * 86_400_000 : 600_000
            XCTAssertLessThanOrEqual(ttl, longest, "\(key) lives longer than it should")
            let value = try redis.cli(["DUMP", key])
            // The journal keeps what each write set (the project's name) as it must to undo it; never the token.
            for secret in [fake.options.token, "pat"] + (isJournal ? [] : [name, "Secret"]) {
                XCTAssertFalse(key.contains(secret), key)
                XCTAssertFalse(value.contains(secret), "\(key) holds \(secret)")
            }
        }
    }
}

extension SeveralMachinesTests {
    func testAnAssistantsServerKeepsOneConnectionAndReconnects() throws {
        let redis = try RedisServer()
        try startFake()
        let process = machine(redis.url())
        let session = try MCPSession(process, arguments: ["mcp", "--root", process.runtimeDirectory])
        XCTAssertNotNil(session.call("initialize", MCPTests.initialize)["result"])
        session.notify("notifications/initialized")
        func total() -> Int? {
            let result = session.call("tools/call", ["name": "list_projects", "arguments": ["limit": 1]])["result"]
            return (result as? [String: Any])?.structured["total"] as? Int
        }
        for _ in 0..<3 { XCTAssertEqual(total(), 16) }
        // Three calls, one connection: the server's, beside redis-cli's own.
        let clients = try redis.cli(["CLIENT", "LIST"]).split(separator: "\n").filter { !$0.contains("cmd=client") }
        XCTAssertEqual(clients.count, 1, "\(clients)")
        // Redis restarts: the next call reconnects at once, with no warning and no fallback.
        redis.stop()
        try redis.start()
        XCTAssertEqual(total(), 16)
        XCTAssertTrue(try redis.keys().contains { $0.key.contains(":budget:") })
        XCTAssertEqual(session.finish().status, 0)
        XCTAssertFalse(session.stderr.contains("warning"), session.stderr)
    }
}

extension SeveralMachinesTests {
    func testRedisStoppedMidRunLeavesTheListingToFinishOnThisMachine() throws {
        let redis = try RedisServer()
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        try startFake(records: FakeAirtable.generatedProjects(count: 1000), options: options)
        let laptop = machine(redis.url(), ["AIRTABLE_TABLE": fake.options.table])
        let (process, out, err) = try laptop.start(["list"])
        // Stopped once a few pages have been paced through it.
        let deadline = Date().addingTimeInterval(10)
        while fake.recordLog.count < 3 && Date() < deadline { usleep(10_000) }
        redis.stop()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertEqual(stdout.split(separator: "\n").count, 1000)
        XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
        XCTAssertTrue(stderr.hasPrefix("tracker: warning: the Redis at redis://127.0.0.1:\(redis.port)"), stderr)
        XCTAssertFalse(fake.log.contains { $0.status == 429 })
    }
}

/// tracker on a machine without libcurl, as a slim container is: one line saying what to install.
final class WithoutLibcurlTests: FakeAirtableTestCase {
    func testWithoutLibcurlOneLineSaysWhatToInstall() throws {
        try startFake()
        let process = tracker()
        // A mount namespace of its own hides the library (root only; skipped elsewhere).
        let hide = ["libcurl.so.4", "libcurl-gnutls.so.4"].map { "/usr/lib/x86_64-linux-gnu/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0) }
            .map { "mount --bind /dev/null \($0)" }.joined(separator: " && ")
        guard !hide.isEmpty, getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("needs root, unshare and libcurl in /usr/lib/x86_64-linux-gnu")
        }
        let script = "\(hide) && exec \"$0\" list 2>&1"
        let (status, text) = try runProgram(
            "/usr/bin/unshare", ["-m", "/bin/sh", "-c", script, TrackerProcess.binary.path],
            environment: process.environment, directory: process.runtimeDirectory)
        guard !text.contains("mount:") && !text.contains("unshare:") else {
            throw XCTSkip("no mount namespace: \(text)")
        }
        XCTAssertEqual(status, 69, text)
        XCTAssertEqual(text.split(separator: "\n").count, 1, text)
        XCTAssertTrue(
            text.hasPrefix(
                "tracker: libcurl (libcurl.so.4), which tracker sends its requests with, is not installed; install it: apt-get install libcurl4"
            ), text)
        XCTAssertTrue(fake.log.isEmpty)
    }
}

extension SeveralMachinesTests {
    func testDoctorSaysWhatTheRedisIsAndWhenItCannotBeUsed() throws {
        let redis = try RedisServer()
        try startFake()
        let laptop = machine(redis.url())
        let good = try laptop.run(["doctor"])
        XCTAssertEqual(good.status, 0, good.stderr)
        let line = try XCTUnwrap(good.lines.first { $0.contains("redis://127.0.0.1:\(redis.port)") }, good.stdout)
        XCTAssertTrue(line.hasPrefix("ok"), line)
        XCTAssertTrue(line.contains("authenticated, round trip"), line)
        XCTAssertTrue(line.contains("scripts run, writes taken, clock"), line)
        redis.stop()
        let down = try laptop.run(["doctor"])
        XCTAssertEqual(down.status, 69, down.stderr)
        XCTAssertTrue(
            down.stdout.contains("failed    sharing: the Redis at redis://127.0.0.1:\(redis.port) cannot be used"))
        XCTAssertTrue(down.stderr.contains("Check that the Redis is running"), down.stderr)
        XCTAssertFalse(down.stderr.contains("Check your connection and the endpoint"), down.stderr)
    }
}
