import Foundation
import XCTest

@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam
import TrackerSystem

/// The budget script in a real Redis paces as PaceSchedule does on one machine: the same windows, hold and slowdown.
final class RedisScriptTests: XCTestCase {
    func testTheBudgetScriptPacesAsTheMachinesScheduleDoes() throws {
        let redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        func reserve() throws -> Double {
            try RedisScriptTests.wait(
                connection.evaluate([
                    (RedisScripts.budget, ["tracker:{appT}:budget:x"], ["reserve", "5", "0", "p", "600"])
                ]))
        }
        var schedule = PaceSchedule()
        // Seven at once: five go together, two wait for the window; then a 429's hold of 3 s and a slower pace.
        var expected = (0..<7).map { _ in schedule.reserve(at: 0, requestsPerSecond: 5) }
        var actual = try (0..<7).map { _ in try reserve() }
        schedule.rateLimited(at: 0, holdingFor: 3)
        _ = try connection.evaluate([
            (RedisScripts.budget, ["tracker:{appT}:budget:x"], ["hold", "5", "3", "p", "600"])
        ])
        expected += (0..<3).map { _ in schedule.reserve(at: 0, requestsPerSecond: 5) }
        actual += try (0..<3).map { _ in try reserve() }
        XCTAssertEqual(expected.count, actual.count)
        for (want, got) in zip(expected, actual) {
            // The script's clock moves on while the test asks (milliseconds); the schedule's does not.
            XCTAssertEqual(got, want, accuracy: 0.1, "expected \(expected), got \(actual)")
        }
        let slowed = 2.5 * PaceSchedule.givenMargin / 5
        XCTAssertEqual(expected.suffix(3).map { ($0 * 1000).rounded() / 1000 }, [3, 3 + slowed, 3 + 2 * slowed])
        // A restarted Redis has no script: it is sent again by its text, and pacing goes on.
        try redis.cli(["SCRIPT", "FLUSH"])
        XCTAssertGreaterThan(try reserve(), 4)
    }

    /// A request that opens its connection may arrive up to its spread after it leaves, and the script counts it in
    /// every window it may arrive in, as PaceSchedule does: before five slots 1.2 s ahead, one on an open connection
    /// goes now and one that opens a connection waits for them; the spread is kept in the stored schedule.
    func testTheBudgetScriptCountsARequestWhereItMayArrive() throws {
        let redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        func wait(_ key: String, spread: Double) throws -> Double {
            guard let now = try connection.call([["TIME"]]).first?.redisTime else { throw XCTSkip("no TIME") }
            let ahead = (0..<5).map { _ in String(now + 1.2) }.joined(separator: " ")
            _ = try connection.call([["SET", key, "0 1 0 " + ahead]])
            return try RedisScriptTests.wait(
                connection.evaluate([
                    (RedisScripts.budget, [key], ["reserve", "5", "0", "p", "600", "0", "\(spread)"])
                ]))
        }
        XCTAssertEqual(try wait("tracker:{appT}:budget:warm", spread: 0), 0)
        XCTAssertGreaterThan(try wait("tracker:{appT}:budget:cold", spread: PaceSchedule.coldSpread), 1)
        let stored = try connection.call([["GET", "tracker:{appT}:budget:cold"]]).first?.text ?? ""
        XCTAssertTrue(stored.contains("/0.300000"), stored)
        XCTAssertNotNil(
            PaceSchedule(text: stored, now: 4e9).sent.first { $0.spread == PaceSchedule.coldSpread }, stored)
    }

    /// The wait in a budget script's answer: {go, the wait in microseconds, the slot held}.
    static func wait(_ answers: [RESPValue]) throws -> Double {
        guard case .array(let parts?) = answers.first, parts.count == 3, case .integer(let micros) = parts[1] else {
            throw XCTSkip("unexpected answer \(answers)")
        }
        return Double(micros) / 1_000_000
    }

    /// The script confirms as PaceSchedule does: a request woken 85 ms late in a full window is given a new slot
    /// after the next window's, one on time goes. Without the confirmation in the script, the late one went.
    func testTheBudgetScriptConfirmsAsTheMachinesScheduleDoes() throws {
        let redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        let key = "tracker:{appT}:budget:confirm"
        func run(_ mode: String, slot: String = "0") throws -> (go: Bool, wait: Double, slot: String) {
            let answers = try connection.evaluate([(RedisScripts.budget, [key], [mode, "5", "0", "p", "600", slot])])
            guard case .array(let parts?) = answers.first, parts.count == 3, case .integer(let go) = parts[0],
                case .integer(let micros) = parts[1], let held = parts[2].text
            else { throw XCTSkip("unexpected answer \(answers)") }
            return (go == 1, Double(micros) / 1_000_000, held)
        }
        let turns = try (0..<10).map { _ in try run("reserve") }
        XCTAssertEqual(turns.prefix(5).map { $0.wait < 0.1 }, [true, true, true, true, true])
        XCTAssertFalse(turns.contains { $0.go }, "a reserved slot is confirmed before it goes")
        for turn in turns.prefix(4) { XCTAssertTrue(try run("confirm", slot: turn.slot).go) }
        usleep(85_000)
        let late = try run("confirm", slot: turns[4].slot)
        XCTAssertFalse(late.go, "going 85 ms late would put six in the next window's second")
        XCTAssertGreaterThan(late.wait, 1.5)
        // A slot that is not in the schedule (a 429 wiped it) is not trusted: a hold makes it wait.
        _ = try connection.evaluate([(RedisScripts.budget, [key], ["hold", "5", "3", "p", "600"])])
        let wiped = try run("confirm", slot: turns[5].slot)
        XCTAssertFalse(wiped.go)
        XCTAssertGreaterThan(wiped.wait, 2.5)
    }

    /// A schedule planted a day ahead (a hand's mistake, a Redis whose clock stepped back) is discarded by the script:
    /// no machine waits on it. Without the horizon check every machine's next request waited the day out.
    func testAScheduleFurtherAheadThanTrackerWritesIsDiscarded() throws {
        let redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        let key = "tracker:{appT}:budget:x"
        func reserve() throws -> Double {
            try RedisScriptTests.wait(
                connection.evaluate([(RedisScripts.budget, [key], ["reserve", "5", "0", "p", "600"])]))
        }
        guard case .array(let time?) = try connection.command(["TIME"]),
            let seconds = time.first?.text.flatMap(Double.init)
        else { return XCTFail("TIME did not answer") }
        for planted in ["\(seconds + 86400) 1 0", "99999999999 1 0", "0 1 0 \(seconds + 7200)"] {
            try redis.cli(["SET", key, planted])
            XCTAssertLessThan(try reserve(), 1, "planted \(planted)")
            try redis.cli(["DEL", key])
        }
        // A hold tracker could have written (a 429's 30 s) is still obeyed.
        _ = try connection.evaluate([(RedisScripts.budget, [key], ["hold", "5", "30", "p", "600"])])
        XCTAssertGreaterThan(try reserve(), 25)
        // A hold asked for far past the horizon is cut to half of it, so what is stored stays believable.
        try redis.cli(["DEL", key])
        _ = try connection.evaluate([(RedisScripts.budget, [key], ["hold", "5", "86400", "p", "600"])])
        let wait = try reserve()
        XCTAssertGreaterThan(wait, 250)
        XCTAssertLessThanOrEqual(wait, 301)
    }

    /// A lock is let go by compare-and-delete: a holder whose lease ran out and was taken by another process never
    /// deletes the other's lock (a plain DEL would, and two machines would then both write).
    func testReleasingALockDeletesOnlyThisProcesssOwn() throws {
        let redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        let team = TeamCoordination(connection: connection, machine: MachineCoordination(directory: .none)) { _ in }
        let key = "tracker:{appT}:lock:x"
        func acquire() throws -> RedisLock {
            let done = DispatchSemaphore(value: 0)
            let result = Locked<Result<RedisLock, AppError>?>(nil)
            Task.detached {
                let taken = await RedisLock.acquire(
                    key: key, team: team, waitingAtMost: 1, doing: "adding", now: { Date().timeIntervalSince1970 },
                    sleep: { _ in })
                result.withLock { $0 = taken }
                done.signal()
            }
            done.wait()
            return try XCTUnwrap(result.withLock { $0 }).get()
        }
        var lock: RedisLock? = try acquire()
        XCTAssertNotNil(lock)
        // Its lease ran out and another process took the key.
        try redis.cli(["SET", key, "another-holders-value"])
        lock = nil
        XCTAssertEqual(try redis.cli(["GET", key]), "another-holders-value")
        // Its own value it does delete.
        try redis.cli(["DEL", key])
        lock = try acquire()
        XCTAssertEqual(try redis.cli(["EXISTS", key]), "1")
        lock = nil
        XCTAssertEqual(try redis.cli(["EXISTS", key]), "0")
        withExtendedLifetime(lock) {}
    }
}
