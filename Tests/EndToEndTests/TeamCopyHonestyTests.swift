import FakeAirtable
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The team's copy after the faults a real redis-server has (refused writes, a restart from an older dump) and a poller
/// whose Airtable refuses it: nothing is taken as applied that Redis did not apply, and a copy nobody refreshes is
/// said to be old, whoever holds the lease. And one copy serves a board and an assistant alike.
final class TeamCopyHonestyTests: TeamCopyTestCase {
    /// What Redis holds for project `id` in the copy (its stored value), or "".
    private func stored(_ id: String) throws -> String {
        guard let key = try tableKey("projects") else { return "" }
        return try redis.cli(["HGET", key, id])
    }

    /// Saves a dump, renames project 6 through `machine` (`written` says when it has landed), and restarts Redis from
    /// the dump: the copy in Redis goes back to before the rename.
    private func restartFromADumpOlderThanARename(by machine: TrackerProcess, written: () throws -> Bool) throws {
        XCTAssertEqual(try redis.cli(["SAVE"]), "OK")
        // The renaming machine does not share the team's budget: its three requests (the schema, the journal's read
        // of the name, the PATCH) wait out the second of the poller's first reads, or together they pass Airtable's
        // five a second and the base is locked for 30 s.
        usleep(1_100_000)
        let renamed = try machine.run(["update", "rec00000000000006", "--name", "After the dump"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertTrue(try waitFor(10, written))
        redis.stop()
        try redis.start()
        XCTAssertFalse(try stored("rec00000000000006").contains("After the dump"), "the dump is older")
    }

    /// A change the poller read while Redis refused every write (out of memory under `noeviction`) reaches Redis once
    /// it takes writes again (broken by a poller that moves its cursor before Redis applied the refresh: the change was
    /// lost for good, and every reader served the old name).
    func testARefreshRedisRefusedIsNotLost() throws {
        let (poller, reader) = try pollerAndReader()
        _ = try redis.cli(["CONFIG", "SET", "maxmemory-policy", "noeviction"])
        _ = try redis.cli(["CONFIG", "SET", "maxmemory", "1"])
        let renamed = try tracker([:]).run(["update", "rec00000000000005", "--name", "While Redis was full"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        // Two of the poller's rounds read the change and are refused.
        usleep(5_000_000)
        XCTAssertFalse(try stored("rec00000000000005").contains("While Redis was full"))
        _ = try redis.cli(["CONFIG", "SET", "maxmemory", "0"])
        XCTAssertTrue(
            try waitFor(20) { try stored("rec00000000000005").contains("While Redis was full") },
            "the change never reached Redis: " + poller.stderr)
        XCTAssertNotNil(seconds(until: "While Redis was full", of: "rec00000000000005", on: reader, within: 10))
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// Redis restarted from a dump older than the poller's last refresh: the poller sees the copy went back in time and
    /// puts its own in again (broken by a refresh accepted over it: the rename made after the dump was lost for good).
    func testARedisRestartedFromAnOlderDumpIsPutRightByThePoller() throws {
        let (poller, reader) = try pollerAndReader()
        try restartFromADumpOlderThanARename(by: tracker([:])) {
            try self.stored("rec00000000000006").contains("After the dump")
        }
        XCTAssertTrue(
            try waitFor(20) { try stored("rec00000000000006").contains("After the dump") },
            "the older copy was taken as current: " + poller.stderr)
        usleep(3_000_000)
        let said = poller.stderr.components(separatedBy: "older than the last refresh applied").count - 1
        XCTAssertEqual(said, 1, "put in again once, then refreshed as before: " + poller.stderr)
        for server in [poller, reader] { _ = server.finish() }
    }

    /// The same between rounds: a poller whose rounds are a minute apart (an hour, with Airtable's pings) sees within
    /// seconds that the copy went back in time and puts its own in again, so readers are not served the older copy
    /// until its next round (broken by a poller that looks only at its rounds: the rename stayed lost for the minute).
    func testACopyGoneBackInTimeIsPutRightBetweenRounds() throws {
        try startBase()
        let poller = try server(try teamMachine(every: 60))
        XCTAssertEqual(taskTotal(poller), openTasks)
        // Written through the team's copy: in Redis at once, and the poller takes it in from the news.
        try restartFromADumpOlderThanARename(by: teamMachine(every: 60)) {
            self.name("rec00000000000006", on: poller) == "After the dump"
        }
        XCTAssertTrue(
            try waitFor(15) { try stored("rec00000000000006").contains("After the dump") },
            "the older copy stayed until the next round: " + poller.stderr)
        XCTAssertTrue(poller.stderr.contains("older than the last refresh applied"), poller.stderr)
        _ = poller.finish()
    }

    /// A poller Airtable refuses (a revoked token) says so on its own face and lets the lease go, and a reader does not
    /// serve the copy once it is older than three rounds, though a lease is held (broken by a poller that keeps the
    /// lease in silence, readers served an ever older copy without a word).
    func testAPollerAirtableRefusesSaysSoAndReadersJudgeTheAge() throws {
        let (poller, reader) = try pollerAndReader()
        fake.injectOnEveryRequest(
            .status(401, type: "AUTHENTICATION_REQUIRED", message: "Authentication required"))
        XCTAssertTrue(
            waitFor(8) { poller.stderr.contains("warning: the team's copy is not kept up to date") }, poller.stderr)
        // Three rounds of 2 s and ten seconds' grace: then the copy is too old to serve.
        usleep(17_000_000)
        _ = taskTotal(reader)
        XCTAssertTrue(
            waitFor(3) { reader.stderr.contains("the team's copy in Redis is not used: it is ") }, reader.stderr)
        XCTAssertTrue(reader.stderr.contains(" s old and "), reader.stderr)
        fake.injectOnEveryRequest(nil)
        for server in [poller, reader] { _ = server.finish() }
    }

    /// A poller whose rounds keep failing (Airtable answering what a retry cannot mend, the token still good) lets its
    /// lease go within about three rounds, so another process may poll (broken by a poller that holds on until its
    /// token is refused: its token stayed in the lease the whole time and the test failed).
    func testAPollerWhoseRoundsKeepFailingLetsItsLeaseGoWithinThreeRounds() throws {
        let (poller, reader) = try pollerAndReader()
        let leaseKey = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":lease") })
        let held = try redis.cli(["GET", leaseKey])
        XCTAssertFalse(held.isEmpty)
        fake.injectOnEveryRequest(
            .status(422, type: "INVALID_REQUEST_UNKNOWN", message: "Invalid request: parameter validation failed."))
        var letGo: Double?
        let started = Date()
        while Date().timeIntervalSince(started) < 25, letGo == nil {
            if (try? redis.cli(["GET", leaseKey])) != held { letGo = Date().timeIntervalSince(started) }
            usleep(100_000)
        }
        fake.injectOnEveryRequest(nil)
        // Three failed rounds, each after its retry's wait (measured: about 13 s).
        XCTAssertNotNil(letGo, "the failing poller kept its lease for 25 s: " + poller.stderr)
        XCTAssertLessThan(letGo ?? 99, 20, "more than about three rounds")
        for server in [poller, reader] { _ = server.finish() }
    }

    /// Commands Redis has processed so far (`INFO stats`).
    private func commandsProcessed() throws -> Int {
        let info = try redis.cli(["INFO", "stats"])
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_commands_processed:") }
        return Int(line?.split(separator: ":").last ?? "") ?? 0
    }

    /// A news key Redis will not read as a stream (junk of another type): the reader backs off instead of reading it
    /// in a loop, says why on its next call and answers from Airtable, and the poller makes the copy again (broken by
    /// a follow loop without pause: thousands of commands a second, a thread each).
    func testAStreamRedisRefusesIsSaidAndBackedOffNotSpun() throws {
        let (poller, reader) = try pollerAndReader()
        kill(poller.process.processIdentifier, SIGSTOP)
        let news = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":news") })
        _ = try redis.cli(["DEL", news])
        _ = try redis.cli(["SET", news, "junk"])
        usleep(500_000)
        let before = try commandsProcessed()
        usleep(3_000_000)
        XCTAssertLessThan(try commandsProcessed() - before, 40, "the reader read a refused stream in a loop")
        XCTAssertEqual(taskTotal(reader), openTasks)
        XCTAssertTrue(
            waitFor(3) {
                reader.stderr.contains("the team's copy in Redis is not used: Redis refused to read it: WRONGTYPE")
            }, reader.stderr)
        kill(poller.process.processIdentifier, SIGCONT)
        XCTAssertTrue(try waitFor(15) { try redis.cli(["TYPE", news]) == "stream" }, poller.stderr)
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// A board opened after an assistant's server warmed the team's copy reads that copy (one copy, one poller), and
    /// asks Airtable for next to nothing (broken by a board keeping a copy of its own fields: a second whole read and a
    /// second poller).
    func testABoardAndAnAssistantShareOneCopy() throws {
        try startBase()
        let assistant = try server(try teamMachine(every: 2))
        XCTAssertEqual(taskTotal(assistant), openTasks)
        let before = fake.recordLog.count
        let board = try BoardSession(try teamMachine(every: 2), ["board", "--every", "300"], width: 160, height: 40)
        defer { board.close() }
        _ = board.wait(for: "the team's copy", timeout: 10)
        let shown = board.wait(for: "Project 000", timeout: 5)
        XCTAssertTrue(shown.contains("Project 000") && shown.contains("the team's copy"), shown)
        usleep(1_000_000)
        XCTAssertEqual(wholeTaskPages(since: before), 0, "the board read the tasks whole")
        XCTAssertLessThanOrEqual(fake.recordLog.count - before, 3)
        let heads = try redis.keys().map(\.key).filter { $0.hasSuffix(":head") && $0.contains(":copy:") }
        XCTAssertEqual(heads.count, 1, "\(heads)")
        board.press("q")
        XCTAssertEqual(board.status(), 0)
        XCTAssertEqual(assistant.finish().status, 0, assistant.stderr)
    }

    /// A board that polls the team's copy and whose rounds Airtable refuses says so on its bottom line at once, with no
    /// key pressed (broken by a warning from the poller's task kept for the board's next key or read: the board showed
    /// nothing while the copy aged).
    func testAPollingBoardSaysItsRoundsFailWithoutAKey() throws {
        try startBase()
        let board = try BoardSession(try teamMachine(every: 2), ["board", "--every", "300"], width: 200, height: 40)
        defer { board.close() }
        XCTAssertTrue(board.wait(for: "this process polls").contains("the team's copy (this process polls)"))
        _ = board.wait(for: "Project 000", timeout: 5)
        fake.injectOnEveryRequest(.status(401, type: "AUTHENTICATION_REQUIRED", message: "Authentication required"))
        let said = board.wait(for: "not kept up to date", timeout: 8)
        XCTAssertTrue(said.contains("The team's copy is not kept up to date"), said)
        fake.injectOnEveryRequest(nil)
        board.press("q")
        XCTAssertEqual(board.status(), 0)
    }

    /// A board that follows the team's copy says in its header that the poller's rounds fail while the poller keeps
    /// the lease, so a copy no longer refreshed is not shown as current (broken by a follower that heeds the poller's
    /// failure only when it first loads the copy: its header said "the team's copy" alone).
    func testAFollowingBoardSaysItsPollersRoundsFail() throws {
        try startBase()
        let poller = try server(
            try configuredTracker(
                #""redis": "\#(redis.url())", "teamCopy": true, "teamCopyEvery": 2, "retryBudgetSeconds": 1"#))
        XCTAssertEqual(taskTotal(poller), openTasks)
        let board = try BoardSession(try teamMachine(every: 2), ["board", "--every", "5"], width: 200, height: 40)
        defer { board.close() }
        XCTAssertTrue(board.wait(for: "the team's copy ·").contains("the team's copy · "), board.screen)
        fake.injectOnEveryRequest(.status(502, type: nil))
        let said = board.wait(for: "its poller's rounds fail", timeout: 15)
        XCTAssertTrue(said.contains("the team's copy (its poller's rounds fail)"), said)
        fake.injectOnEveryRequest(nil)
        let mended = board.wait(for: "the team's copy ·", timeout: 15)
        XCTAssertTrue(mended.contains("the team's copy · "), mended)
        board.press("q")
        XCTAssertEqual(board.status(), 0)
        XCTAssertEqual(poller.finish().status, 0, poller.stderr)
    }

    /// A Redis gone slow (every client paused, as a long script or `DEBUG SLEEP` does) costs a one-shot read a second,
    /// said once on one line, and the read is answered from Airtable (broken by the copy's calls waiting as long as
    /// the poller's scripts may, five seconds, or by each of the process's parts waiting its own second).
    func testASlowRedisIsSaidOnceAndNotWaitedFor() throws {
        try startBase()
        let machine = try teamMachine(every: 2)
        XCTAssertEqual(try machine.run(["list", "--max-age", "300"]).status, 0)
        XCTAssertEqual(try redis.cli(["CLIENT", "PAUSE", "9000"]), "OK")
        defer { _ = try? redis.cli(["CLIENT", "UNPAUSE"]) }
        let started = Date()
        let listed = try machine.run(["list", "--max-age", "300", "--format", "tsv"])
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("Project 000"), listed.stdout)
        let lines = listed.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, listed.stderr)
        XCTAssertTrue(
            lines.first?.hasPrefix("tracker: warning: the Redis at redis://127.0.0.1:") == true, listed.stderr)
        XCTAssertTrue(listed.stderr.contains("(it did not answer within 1 s)"), listed.stderr)
        XCTAssertLessThan(took, 8, "waited for a paused Redis: " + listed.stderr)
    }

    /// A call while Redis does not answer is answered from Airtable, not made to wait for a refresh of the copy that
    /// cannot come (broken by a look that, seeing no news for a while, waited `teamCopyEvery` + 2 s for one).
    func testACallWhileRedisIsQuietDoesNotWaitForARefresh() throws {
        let (poller, reader) = try pollerAndReader()
        XCTAssertEqual(try redis.cli(["CLIENT", "PAUSE", "15000"]), "OK")
        defer { _ = try? redis.cli(["CLIENT", "UNPAUSE"]) }
        XCTAssertEqual(taskTotal(reader), openTasks)
        // Longer than one and a half rounds with no news: a look would wait for the poller's next refresh.
        usleep(5_000_000)
        let started = Date()
        XCTAssertEqual(taskTotal(reader), openTasks)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, "waited for a refresh: " + reader.stderr)
        _ = try? redis.cli(["CLIENT", "UNPAUSE"])
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }

    /// Redis busy with a long script (`BUSY` to every other client) is out of reach for a moment: a reader answers from
    /// Airtable meanwhile, and the copy is not made again afterwards (broken by taking `BUSY` as a copy Redis refused:
    /// the reader marked it, and the poller read the whole base again).
    func testARedisBusyWithAScriptIsWaitedOutNotMadeAgain() throws {
        let (poller, reader) = try pollerAndReader()
        _ = try redis.cli(["CONFIG", "SET", "busy-reply-threshold", "100"])
        let before = fake.recordLog.count
        let spin = "local t = redis.call('TIME'); local s = t[1] + 3; repeat t = redis.call('TIME') until t[1] + 0 >= s"
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        busy.arguments = ["-s", redis.socketPath, "EVAL", spin, "0"]
        busy.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try busy.run()
        usleep(500_000)
        XCTAssertEqual(taskTotal(reader), openTasks)
        busy.waitUntilExit()
        usleep(5_000_000)
        XCTAssertEqual(taskTotal(reader), openTasks)
        XCTAssertEqual(wholeTaskPages(since: before), 0, "the copy was read whole again: " + reader.stderr)
        XCTAssertFalse(reader.stderr.contains("Redis refused to read it"), reader.stderr)
        for server in [poller, reader] { XCTAssertEqual(server.finish().status, 0, server.stderr) }
    }
}
