import Foundation
import TrackerSystem
import XCTest

@testable import TrackerNetwork
@testable import TrackerTeam

/// The one lease every holder uses (the write lock, the copy's poller, the schema's read, serve's refresh lock), over
/// a scripted Redis: when it says a holder stopped leading, and that a lease taken again keeps being renewed.
final class LeaseTests: XCTestCase {
    /// A Redis whose renewals answer `renewal()` (1: still yours, 0: another's), counting them.
    private func redis(renewal: @escaping @Sendable () -> Int, renewals: Locked<Int>) throws -> ScriptedRedis {
        try ScriptedRedis { _, words in
            switch words.first?.uppercased() {
            case "SET": return .bytes(Array("+OK\r\n".utf8))
            case "EVAL", "EVALSHA":
                // The renew script has two arguments (holder, milliseconds), the release script one.
                if words.count >= 6 { renewals.withLock { $0 += 1 } }
                return .bytes(Array(":\(renewal())\r\n".utf8))
            default: return ScriptedRedis.ordinary(words)
            }
        }
    }

    /// Waits (10 s at most) until `condition` holds: a busy machine makes it later, never false.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return condition()
    }

    private func connection(_ redis: ScriptedRedis) throws -> RedisConnection {
        RedisConnection(address: try RedisAddress.parse(redis.url).get(), answerTimeout: 1)
    }

    /// A renewal that finds the lease another's tells the holder once and renews no more (broken by renewing on
    /// after a loss: the count grows; by telling at every renewal: told more than once).
    func testALeaseFoundAnothersStopsLeadingOnceAndIsRenewedNoMore() throws {
        let renewals = Locked(0)
        let theirs = Locked(false)
        let redis = try redis(renewal: { theirs.withLock { $0 } ? 0 : 1 }, renewals: renewals)
        let lease = Lease(
            "tracker:{appT}:lease", on: try connection(redis), timing: .init(leaseMilliseconds: 2000, renewEvery: 0.1))
        XCTAssertTrue(try lease.take())
        let told = Locked(0)
        lease.keepRenewed { told.withLock { $0 += 1 } }
        XCTAssertTrue(eventually { renewals.withLock { $0 } >= 2 }, "renewed while held")
        XCTAssertFalse(lease.mayBeLost)
        theirs.withLock { $0 = true }
        XCTAssertTrue(eventually { told.withLock { $0 } >= 1 }, "told it stopped leading")
        Thread.sleep(forTimeInterval: 0.2)
        let afterLoss = renewals.withLock { $0 }
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertEqual(renewals.withLock { $0 }, afterLoss, "renewed after it was another's")
        XCTAssertEqual(told.withLock { $0 }, 1)
        XCTAssertTrue(lease.mayBeLost)
    }

    /// A lease let go and taken again (a poller resting, then polling again) is renewed again: what let the first
    /// hold go does not end the second's renewal (broken by a renewal loop that ends on any wake: none after).
    func testALeaseTakenAgainAfterItWasLetGoIsRenewedAgain() throws {
        let renewals = Locked(0)
        let redis = try redis(renewal: { 1 }, renewals: renewals)
        let lease = Lease(
            "tracker:{appT}:lease", on: try connection(redis), timing: .init(leaseMilliseconds: 2000, renewEvery: 0.1))
        XCTAssertTrue(try lease.take())
        lease.release()
        XCTAssertTrue(lease.mayBeLost, "a lease let go is not held")
        XCTAssertTrue(try lease.take())
        lease.keepRenewed()
        XCTAssertTrue(eventually { renewals.withLock { $0 } >= 2 }, "renewed again")
        lease.release()
        let released = renewals.withLock { $0 }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(renewals.withLock { $0 }, released, "renewed after it was let go")
    }

    /// Renewals that fail for longer than the lease end the hold: another may have it by now (broken by holding on
    /// while Redis is away: never told).
    func testRenewalsFailingLongerThanTheLeaseStopLeading() throws {
        let redis = try ScriptedRedis { _, words in
            switch words.first?.uppercased() {
            case "SET": .bytes(Array("+OK\r\n".utf8))
            case "EVAL", "EVALSHA": .hangUp
            default: ScriptedRedis.ordinary(words)
            }
        }
        let lease = Lease(
            "tracker:{appT}:lease",
            on: RedisConnection(address: try RedisAddress.parse(redis.url).get(), answerTimeout: 0.1),
            timing: .init(leaseMilliseconds: 500, renewEvery: 0.1))
        XCTAssertTrue(try lease.take())
        let told = DispatchSemaphore(value: 0)
        lease.keepRenewed { told.signal() }
        XCTAssertEqual(told.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(lease.mayBeLost)
    }
}
