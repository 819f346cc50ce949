import Foundation
import XCTest

/// `doctor` on a team's Redis that may evict tracker's keys: a lock or the budget's schedule gone under memory pressure
/// is a fault every machine then meets, so doctor warns of it before it happens.
final class RedisEvictionTests: FakeAirtableTestCase {
    func testDoctorWarnsOfARedisThatEvictsKeysAtItsMemoryLimit() throws {
        let redis = try RedisServer()
        try startFake()
        let laptop = tracker(["TRACKER_REDIS_URL": redis.url()])
        func sharingLine() throws -> (line: String, notes: String) {
            let result = try laptop.run(["doctor"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = result.lines
            let index = try XCTUnwrap(
                lines.firstIndex { $0.contains("redis://127.0.0.1:\(redis.port)") }, result.stdout)
            let notes = lines[(index + 1)...].prefix { $0.hasPrefix(" ") }.joined(separator: "\n")
            return (lines[index], notes)
        }
        // Redis's default: no limit, nothing evicted.
        XCTAssertFalse(try sharingLine().notes.contains("evicts"))
        _ = try redis.cli(["CONFIG", "SET", "maxmemory-policy", "allkeys-lru"])
        XCTAssertFalse(try sharingLine().notes.contains("evicts"), "no memory limit: nothing is evicted")
        _ = try redis.cli(["CONFIG", "SET", "maxmemory", "100mb"])
        let evicting = try sharingLine()
        XCTAssertTrue(evicting.line.hasPrefix("ok"), evicting.line)
        XCTAssertTrue(evicting.notes.contains("maxmemory-policy allkeys-lru"), evicting.notes)
        _ = try redis.cli(["CONFIG", "SET", "maxmemory-policy", "noeviction"])
        XCTAssertFalse(try sharingLine().notes.contains("evicts"), "noeviction: nothing is evicted")
    }

    /// A Redis full under `noeviction` answers reads and read-only scripts, and refuses every write: the budget, the
    /// locks and the team's copy all stop. doctor makes a write, as the commands do, and names the refusal.
    func testDoctorNamesARedisThatAnswersButRefusesWrites() throws {
        let redis = try RedisServer()
        try startFake()
        let laptop = tracker(["TRACKER_REDIS_URL": redis.url()])
        XCTAssertEqual(try laptop.run(["doctor"]).status, 0)
        _ = try redis.cli(["CONFIG", "SET", "maxmemory-policy", "noeviction"])
        _ = try redis.cli(["CONFIG", "SET", "maxmemory", "1"])
        let full = try laptop.run(["doctor"])
        XCTAssertEqual(full.status, 69, full.stderr)
        let line = try XCTUnwrap(full.lines.first { $0.contains("redis://127.0.0.1:\(redis.port)") }, full.stdout)
        XCTAssertTrue(line.hasPrefix("failed"), line)
        XCTAssertTrue(line.contains("refuses writes (OOM"), line)
        XCTAssertTrue(full.stderr.contains("Raise its maxmemory"), full.stderr)
        _ = try redis.cli(["CONFIG", "SET", "maxmemory", "0"])
        XCTAssertEqual(try laptop.run(["doctor"]).status, 0, "writes taken again")
    }
}
