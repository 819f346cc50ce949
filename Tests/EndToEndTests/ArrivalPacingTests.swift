import FakeAirtable
import Foundation
import XCTest

/// Airtable counts a base's 5 requests a second where they arrive, and over the internet a request arrives later than
/// it leaves: a new connection's first request after the handshakes, every request after some jitter. tracker goes
/// through the fake's handshake (150 ms before a new connection may send, as DNS, TCP and TLS take) and the fake holds
/// every request up to 50 ms more before it counts it; a burst of processes, new and with connections open, on one
/// machine and through the team's Redis, is never locked out.
final class ArrivalPacingTests: FakeAirtableTestCase {
    private func startLaggingFake() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.arrivalDelay = .init(newConnection: 0.15, jitter: 0.05)
        // Four pages each: a listing's first request opens its connection, the next three go on it.
        try startFake(records: FakeAirtable.generatedProjects(count: 316), options: options)
    }

    /// A machine whose connections open through the fake's handshake (libcurl reads `http_proxy`).
    private func farMachine(_ extra: [String: String] = [:]) -> TrackerProcess {
        let address = fake.endpoint.dropFirst("http://".count)
        return tracker(extra.merging(["http_proxy": "socks5://\(address)"]) { $1 })
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
        let machine = farMachine()
        // The schema first, so every listing is four record pages (a cold one, three warm).
        XCTAssertEqual(try machine.run(["list"]).status, 0)
        let results = try runTogether((0..<8).map { _ in (machine, ["list"]) })
        assertListed(results)
        assertUnderTheLimitAtArrival()
    }

    func testMachinesSharingARedisAreCountedUnderTheLimitWhereTheirRequestsArrive() throws {
        let redis = try RedisServer()
        try startLaggingFake()
        let machines = (0..<3).map { _ in farMachine(["TRACKER_REDIS_URL": redis.url()]) }
        for machine in machines { XCTAssertEqual(try machine.run(["list", "--limit", "1"]).status, 0) }
        let results = try runTogether(machines.flatMap { machine in (0..<3).map { _ in (machine, ["list"]) } })
        assertListed(results)
        assertUnderTheLimitAtArrival()
    }

    func testAnAssistantsServerWithItsConnectionOpenAndNewProcessesTogetherAreCountedUnderTheLimit() throws {
        try startLaggingFake()
        let machine = farMachine()
        XCTAssertEqual(try machine.run(["list"]).status, 0)
        // A server that stays, its connection warm from its first call, asked again and again while new processes
        // (a cron job's, a shell's) open connections of their own beside it.
        let session = try MCPSession(machine)
        _ = session.call("initialize", MCPTests.initialize)
        XCTAssertNil(session.tool("list_projects", ["limit": 5])["error"])
        let asking = Thread {
            for _ in 0..<6 { _ = session.tool("list_projects", ["limit": 5]) }
        }
        asking.start()
        let results = try runTogether((0..<6).map { _ in (machine, ["list"]) })
        while asking.isExecuting { usleep(50_000) }
        assertListed(results)
        assertUnderTheLimitAtArrival()
        XCTAssertEqual(session.finish().status, 0)
    }
}
