import FakeAirtable
import Foundation
import XCTest

/// A team's Redis in cluster mode (a managed cluster-mode Redis or Valkey, or a cluster of one's own): named by any
/// node, it works as one Redis does. A base's keys share one slot and live on the node that serves it.
final class RedisClusterTests: FakeAirtableTestCase {
    func testThreeMachinesShareABaseThroughAClusterNamedByAnotherNode() throws {
        let cluster = try RedisCluster()
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        try startFake(records: FakeAirtable.generatedProjects(count: 300), options: options)
        // The machines are given a node that does not serve the base's slot: every budget call is redirected there.
        let base = "tracker:{\(fake.options.baseID)}:budget:x"
        let owner = try cluster.owner(of: base)
        let seed = try XCTUnwrap(cluster.ports.first { $0 != owner })
        let machines = (0..<3).map { _ in tracker(["TRACKER_REDIS_URL": "redis://127.0.0.1:\(seed)"]) }
        let started = try machines.flatMap { machine in try (0..<3).map { _ in try machine.start(["list"]) } }
        for (process, out, err) in started {
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, stderr)
            XCTAssertEqual(stdout.split(separator: "\n").count, 300)
            XCTAssertEqual(stderr, "", "no fallback to the machine: the cluster was used")
        }
        XCTAssertEqual(fake.recordLog.filter { $0.status == 429 }.count, 0, "0 × 429 for 3 machines × 3 lists")
        // The base's budget lives on the node that serves its slot, and nowhere else.
        for port in cluster.ports {
            let budgets = try cluster.keys(on: port).filter { $0.hasPrefix("tracker:{\(fake.options.baseID)}:budget:") }
            XCTAssertEqual(budgets.isEmpty, port != owner, "node \(port) (owner \(owner)): \(budgets)")
        }
        // The lock goes there too: nine racing creates from three machines make one project.
        let racing = try machines.flatMap { machine in
            try (0..<3).map { _ in
                try machine.start(["add", "--if-absent", "--name", "Weekly review", "--due", "2026-12-04", "-q"])
            }
        }
        for (process, _, err) in racing {
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, stderr)
        }
        XCTAssertEqual(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Weekly review" }.count, 1)
        // doctor checks it through the node given.
        let doctor = try machines[0].run(["doctor"])
        XCTAssertEqual(doctor.status, 0, doctor.stdout + doctor.stderr)
    }
}
