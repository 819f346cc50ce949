import FakeAirtable
import Foundation
import XCTest

/// Airtable counts a base's 5 requests a second where they arrive, and over the internet a request arrives later than
/// it leaves: a new connection's first request after the handshakes, every request after some jitter. The fake holds
/// requests back so (150 ms for a connection's first, up to 50 ms more for every one) before it counts them, and a
/// burst of processes, new and with connections open, on one machine and through the team's Redis, is never locked
/// out.
final class ArrivalPacingTests: FakeAirtableTestCase {
    private func startLaggingFake() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.arrivalDelay = .init(newConnection: 0.15, jitter: 0.05)
        // Four pages each: a listing's first request opens its connection, the next three go on it.
        try startFake(records: FakeAirtable.generatedProjects(count: 316), options: options)
    }

    /// No 429, and no second of arrivals (as the fake counted them) holds more than five.
    private func assertUnderTheLimitAtArrival(file: StaticString = #filePath, line: UInt = #line) {
        let statuses = fake.log.map(\.status)
        XCTAssertFalse(statuses.contains(429), "\(statuses.filter { $0 == 429 }.count) × 429", file: file, line: line)
        let times = fake.log.map(\.received).sorted()
        for (index, time) in times.enumerated() {
            XCTAssertLessThanOrEqual(times[index...].prefix { $0 < time + 1 }.count, 5, file: file, line: line)
        }
    }

    private func assertListed(_ results: [ProcessResult], file: StaticString = #filePath, line: UInt = #line) {
        for result in results {
            XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
            XCTAssertEqual(result.lines.count, 316, file: file, line: line)
            XCTAssertEqual(result.stderr, "", file: file, line: line)
        }
    }

    func testABurstOfListingsOnOneMachineIsCountedUnderTheLimitWhereItArrives() throws {
        try startLaggingFake()
        let machine = tracker()
        // The schema first, so every listing is four record pages (a cold one, three warm).
        XCTAssertEqual(try machine.run(["list"]).status, 0)
        let results = try runTogether((0..<8).map { _ in (machine, ["list"]) })
        assertListed(results)
        assertUnderTheLimitAtArrival()
    }

    func testMachinesSharingARedisAreCountedUnderTheLimitWhereTheirRequestsArrive() throws {
        let redis = try RedisServer()
        try startLaggingFake()
        let machines = (0..<3).map { _ in tracker(["TRACKER_REDIS_URL": redis.url()]) }
        for machine in machines { XCTAssertEqual(try machine.run(["list", "--limit", "1"]).status, 0) }
        let results = try runTogether(machines.flatMap { machine in (0..<3).map { _ in (machine, ["list"]) } })
        assertListed(results)
        assertUnderTheLimitAtArrival()
    }
}
