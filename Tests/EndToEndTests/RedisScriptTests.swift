import Foundation
import XCTest

@testable import TrackerNetwork

/// The budget script in a real Redis paces as PaceSchedule does on one machine: the same windows, hold and slowdown.
final class RedisScriptTests: XCTestCase {
    func testTheBudgetScriptPacesAsTheMachinesScheduleDoes() throws {
        let redis = try RedisServer()
        let connection = RedisConnection(
            address: try RedisAddress.parse("unix://\(redis.socketPath)").get(), answerTimeout: 5)
        func reserve() throws -> Double {
            let answer = try connection.evaluate([
                (RedisScripts.budget, ["tracker:{appT}:budget:x"], ["reserve", "5", "0", "p"])
            ])
            guard case .integer(let micros) = answer[0] else { throw XCTSkip("unexpected answer \(answer)") }
            return Double(micros) / 1_000_000
        }
        var schedule = PaceSchedule()
        // Seven at once: five go together, two wait for the window; then a 429's hold of 3 s and a slower pace.
        var expected = (0..<7).map { _ in schedule.reserve(at: 0, requestsPerSecond: 5) }
        var actual = try (0..<7).map { _ in try reserve() }
        schedule.rateLimited(at: 0, holdingFor: 3)
        _ = try connection.evaluate([(RedisScripts.budget, ["tracker:{appT}:budget:x"], ["hold", "5", "3", "p"])])
        expected += (0..<3).map { _ in schedule.reserve(at: 0, requestsPerSecond: 5) }
        actual += try (0..<3).map { _ in try reserve() }
        XCTAssertEqual(expected.count, actual.count)
        for (want, got) in zip(expected, actual) {
            // The script's clock moves on while the test asks (milliseconds); the schedule's does not.
            XCTAssertEqual(got, want, accuracy: 0.1, "expected \(expected), got \(actual)")
        }
        XCTAssertEqual(expected.suffix(3).map { ($0 * 1000).rounded() / 1000 }, [3, 3.525, 4.05])
        // A restarted Redis has no script: it is sent again by its text, and pacing goes on.
        try redis.cli(["SCRIPT", "FLUSH"])
        XCTAssertGreaterThan(try reserve(), 4)
    }
}
