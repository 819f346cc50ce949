import Foundation
import XCTest

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerTeam

/// Machines opening together read the base's schema once between them: one claims the read and shares it, the others
/// take what it shared, however their looks and its sharing interleave.
final class TeamSchemaClaimTests: XCTestCase {
    private var redis: RedisServer!
    private let owner = BudgetOwner(
        endpoint: URL(string: "http://127.0.0.1:1")!, baseID: "appTEAM", token: "pat", requestsPerSecond: 5)
    private let schema = JSONValue.object([("tables", .array([]))])

    override func setUpWithError() throws { redis = try RedisServer() }
    override func tearDown() { redis = nil }

    private func machine() throws -> TeamSchema {
        TeamSchema(
            owner: owner,
            connection: RedisConnection(
                address: try RedisAddress.parse("redis://127.0.0.1:\(redis.port)").get(), answerTimeout: 5))
    }

    /// A machine that looked just before another shared the schema, and then took the claim that one let go, takes the
    /// shared schema and lets the claim go (broken by a claim taken without looking again: it reads the schema a
    /// second time).
    func testAClaimTakenAfterTheSchemaWasSharedTakesIt() async throws {
        let (first, second) = (try machine(), try machine())
        XCTAssertNil(second.shared(), "nothing shared when the second machine looks")
        XCTAssertTrue(first.claim())
        first.share(schema, readAt: 1_795_000_000, lifetime: 3_600)
        let found = await second.claimOrAwait { _ in true }
        XCTAssertEqual(found?.schema, schema, "the second machine reads the schema itself")
        XCTAssertEqual(try redis.cli(["EXISTS", second.claimKey]).trimmingCharacters(in: .whitespacesAndNewlines), "0")
    }

    /// A machine that finds the read claimed waits for the schema it shares, and reads it itself only when the claim
    /// ends without one.
    func testAMachineWaitsForTheClaimsSchemaAndReadsItOnlyWhenTheClaimEndsWithoutOne() async throws {
        let (first, second, third) = (try machine(), try machine(), try machine())
        XCTAssertTrue(first.claim())
        let schema = schema
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
            first.share(schema, readAt: 1_795_000_000, lifetime: 3_600)
        }
        let waited = await second.claimOrAwait { _ in true }
        XCTAssertEqual(waited?.schema, schema)

        _ = try redis.cli(["DEL", first.key])
        XCTAssertTrue(first.claim())
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { first.release() }
        let failed = await third.claimOrAwait { _ in true }
        XCTAssertNil(failed, "the claim ended without a schema: this machine reads it")
    }
}
