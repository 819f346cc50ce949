import FakeAirtable
import Foundation
import LoopbackTLS
import TrackerSystem
import XCTest

@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam

/// A Redis that is broken or hostile, started by the tests: tracker treats what breaks a bound as an unreachable Redis
/// (one warning, pacing on this machine), never crashes, never waits past a deadline, never waits for its own lock.
final class HostileRedisTests: FakeAirtableTestCase {
    /// Nested arrays 400,000 deep were a SIGSEGV (the reader recursed without a bound); a 512 MiB bulk was accepted.
    func testARedisAnsweringGarbageIsAFaultNotACrash() throws {
        try startFake()
        let deep = Array(String(repeating: "*1\r\n", count: 400_000).utf8) + Array(":1\r\n".utf8)
        for garbage in [deep, Array("$536870911\r\n".utf8)] {
            let redis = try ScriptedRedis { _, words in
                words.first?.uppercased().hasPrefix("EVAL") == true ? .bytes(garbage) : ScriptedRedis.ordinary(words)
            }
            let listed = try tracker(["TRACKER_REDIS_URL": redis.url]).run(["list"])
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertEqual(listed.lines.count, 16)
            XCTAssertTrue(
                listed.stderr.hasPrefix("tracker: warning: the Redis at \(redis.url) cannot be used ("), listed.stderr)
            XCTAssertTrue(listed.stderr.contains("its answer could not be read"), listed.stderr)
            XCTAssertEqual(listed.stderr.split(separator: "\n").count, 1, "one warning line")
        }
    }

    /// A Redis named by a host name is offered to the plain socket, which resolves nothing, and so reached through
    /// libcurl: the listing is paced through it with no warning.
    func testARedisAtAHostNameIsReachedThroughLibcurl() throws {
        try startFake()
        let heard = Locked(0)
        let redis = try ScriptedRedis { _, words in
            heard.withLock { $0 += 1 }
            return ScriptedRedis.ordinary(words)
        }
        let url = redis.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let listed = try tracker(["TRACKER_REDIS_URL": url]).run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.lines.count, 16)
        XCTAssertEqual(listed.stderr, "", "no warning: the Redis was reached")
        XCTAssertGreaterThan(heard.withLock { $0 }, 0, "the budget went through this Redis")
    }

    /// An answer sent a byte at a time, never finished, is bounded by the 1 s deadline: the listing goes on, paced on
    /// this machine, in seconds, not the 10 s the answer would take.
    func testAnAnswerTrickledAByteAtATimeStopsAtTheDeadline() throws {
        try startFake()
        let redis = try ScriptedRedis { _, words in
            words.first?.uppercased().hasPrefix("EVAL") == true
                ? .trickle(Array((":" + String(repeating: "1", count: 200) + "\r\n").utf8), pause: 0.05)
                : ScriptedRedis.ordinary(words)
        }
        let started = Date()
        let listed = try tracker(["TRACKER_REDIS_URL": redis.url]).run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stderr.contains("it did not answer within 1 s"), listed.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)
    }

    /// Over TLS the same: each byte of a record wakes the reader, but no record is whole before the deadline, and the
    /// one deadline of the exchange ends it (with a deadline per wait, the read went on for the record's whole length:
    /// 10 KB a byte each 20 ms is 200 s).
    func testATLSRecordTrickledAByteAtATimeStopsAtTheDeadline() throws {
        try startFake()
        let answer = Array((":" + String(repeating: "1", count: 10_000) + "\r\n").utf8)
        guard let server = try TLSServer.start(sending: answer) else { throw XCTSkip("openssl is needed") }
        defer { server.stop() }
        let relay = try TrickleRelay(to: server.port, tricklingRecordsLongerThan: 4096, pause: 0.02)
        let started = Date()
        let listed = try tracker([
            "TRACKER_REDIS_URL": "rediss://127.0.0.1:\(relay.port)", "TRACKER_REDIS_CA": server.certificatePath,
        ]).run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.lines.count, 16)
        XCTAssertTrue(listed.stderr.contains("it did not answer within 1 s"), listed.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)
    }

    /// A Redis that did not answer one connection in time is left alone for a moment by the process's others (the
    /// budget, the schema, the copy), which fail at once with the same reason instead of each waiting its own bound
    /// (broken by connections that each wait: a call after idle waited three seconds where one does).
    func testARedisGoneQuietIsWaitedForOnceNotByEachConnection() throws {
        let redis = try ScriptedRedis { _, words in
            words.first?.uppercased() == "GET"
                ? .trickle(Array(":1\r\n".utf8), pause: 1) : ScriptedRedis.ordinary(words)
        }
        let address = try RedisAddress.parse(redis.url).get()
        let (first, second) = (RedisConnection(address: address, answerTimeout: 0.3), RedisConnection(address: address))
        XCTAssertEqual(try second.command(["PING"]), .simple("PONG"))
        XCTAssertThrowsError(try first.command(["GET", "k"])) {
            XCTAssertEqual($0 as? RedisFailure, .unreachable("it did not answer within 300 ms"))
        }
        let started = Date()
        XCTAssertThrowsError(try second.command(["PING"])) {
            XCTAssertEqual($0 as? RedisFailure, .unreachable("it did not answer within 300 ms"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "waited its own bound")
        usleep(UInt32(RedisConnection.quietSeconds * 1_000_000) + 100_000)
        XCTAssertEqual(try second.command(["PING"]), .simple("PONG"), "asked again after the moment")
    }

    /// Renewals that fail for longer than the lease leave the lock lost, even when the Redis later says the key is
    /// still this process's (it may have expired and been taken and released meanwhile): the write never goes out.
    func testALockWhoseRenewalsFailedForALeaseIsLostWhateverRedisSaysAfter() throws {
        let failing = Locked(true)
        let redis = try ScriptedRedis { _, words in
            switch words.first?.uppercased() {
            case "SET": .bytes(Array("+OK\r\n".utf8))
            case "GET": .bytes(Array("$-1\r\n".utf8))
            case "EVAL", "EVALSHA": failing.withLock { $0 } ? .hangUp : .bytes(Array(":1\r\n".utf8))
            default: ScriptedRedis.ordinary(words)
            }
        }
        let connection = RedisConnection(address: try RedisAddress.parse(redis.url).get(), answerTimeout: 1)
        let team = TeamCoordination(connection: connection, machine: MachineCoordination(directory: .none)) { _ in }
        let done = DispatchSemaphore(value: 0)
        let taken = Locked<Result<RedisLock, AppError>?>(nil)
        Task.detached {
            let lock = await RedisLock.acquire(
                key: "tracker:{appT}:lock:x", team: team, waitingAtMost: 1, doing: "adding",
                timing: Lease.Timing(leaseMilliseconds: 600, renewEvery: 0.2), now: { Date().timeIntervalSince1970 },
                sleep: { _ in })
            taken.withLock { $0 = lock }
            done.signal()
        }
        done.wait()
        let lock = try XCTUnwrap(taken.withLock { $0 }).get()
        // Renewals fail for twice the lease; then the Redis answers again, saying the lease holds.
        Thread.sleep(forTimeInterval: 1.2)
        failing.withLock { $0 = false }
        XCTAssertThrowsError(try lock.confirmHeld()) { error in
            guard case AppError.teamLockLost = error else { return XCTFail("expected the lock lost, got \(error)") }
        }
    }

    /// A `SET … NX` whose answer was lost (the connection dropped after Redis applied it) is sent again on a new
    /// connection and finds the key taken by its own value: it holds the lock at once (before, it waited for itself
    /// until the retry budget ran out and ended with 75).
    func testASetWhoseAnswerWasLostFindsItsOwnValueAndHoldsTheLock() throws {
        try startFake()
        let stored = Locked<String?>(nil)
        let redis = try ScriptedRedis { _, words in
            switch words.first?.uppercased() {
            case "SET" where words.contains("NX"):
                let first = stored.withLock { value in
                    defer { if value == nil { value = words[2] } }
                    return value == nil
                }
                return first ? .hangUp : .bytes(Array("$-1\r\n".utf8))
            case "GET":
                let value = stored.withLock { $0 } ?? ""
                return .bytes(Array("$\(value.utf8.count)\r\n\(value)\r\n".utf8))
            default: return ScriptedRedis.ordinary(words)
            }
        }
        let started = Date()
        let added = try tracker(["TRACKER_REDIS_URL": redis.url]).run([
            "add", "--if-absent", "--name", "Once despite a lost answer", "--due", "2026-12-04",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Once despite a lost answer" }
                .count, 1)
    }

    /// An address that reaches a replica (a failover moved the primary): its `READONLY` sends tracker to the primary
    /// it names (`ROLE`), where the budget is kept; before, the team's budget was dropped for the machine's.
    func testAReplicasReadOnlyAnswerSendsTheCallToItsPrimary() throws {
        let primary = try RedisServer()
        let primaryPort = primary.port
        try startFake()
        let replica = try ScriptedRedis { _, words in
            switch words.first?.uppercased() {
            case "EVALSHA", "EVAL", "SET", "DEL":
                return .bytes(Array("-READONLY You can't write against a read only replica.\r\n".utf8))
            case "ROLE":
                return .bytes(
                    Array(
                        "*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:\(primaryPort)\r\n$9\r\nconnected\r\n:1\r\n".utf8))
            default: return ScriptedRedis.ordinary(words)
            }
        }
        let listed = try tracker(["TRACKER_REDIS_URL": replica.url]).run(["list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stderr, "", "the team's budget, at the primary: no fallback")
        XCTAssertTrue(try primary.keys().contains { $0.key.contains(":budget:") })
    }
}
