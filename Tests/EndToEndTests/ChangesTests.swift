import FakeAirtable
import Foundation
import XCTest

/// `tracker changes` as cron runs it: nothing the first time, each change once, none lost to a failed run.
final class ChangesTests: FakeAirtableTestCase {
    private func snapshots(_ run: TrackerProcess) -> [String] {
        let directory = (run.environment["HOME"] ?? "") + "/.local/state/tracker"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).map { directory + "/" + $0 }
    }

    func testEachChangeIsReportedOnceAndAFailedRunLosesNone() throws {
        try startFake()
        let run = tracker()
        let first = try run.run(["changes"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout + first.stderr, "", "the first run remembers and says nothing off a terminal")
        XCTAssertEqual(fake.recordLog.count, 1, "one listing")
        let snapshot = try XCTUnwrap(snapshots(run).first)
        let attributes = try FileManager.default.attributesOfItem(atPath: snapshot)
        XCTAssertEqual((attributes[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o600)
        let inode = attributes[.systemFileNumber] as? Int
        XCTAssertEqual(try run.run(["changes"]).stdout, "", "nothing changed, nothing printed")
        let after = try FileManager.default.attributesOfItem(atPath: snapshot)
        XCTAssertEqual(after[.systemFileNumber] as? Int, inode, "the same snapshot, not replaced by an equal one")

        XCTAssertEqual(try run.run(["update", "Coffee packaging", "--due", "2027-01-15", "--notes", "new"]).status, 0)
        XCTAssertEqual(try run.run(["done", "Lemon headband"]).status, 0)
        XCTAssertEqual(try run.run(["update", "CMCA brand identity", "--name", "CMCA identity"]).status, 0)
        let added = try run.run(["add", "--name", "Fresh <b>start</b>", "--due", "2027-02-01"]).stdout
        XCTAssertTrue(added.hasPrefix("rec"))
        XCTAssertEqual(try run.run(["delete", "--yes", "Premier utility bike"]).status, 0)
        let expected = [
            "Coffee packaging: due 2020-10-30 → 2027-01-15", "Coffee packaging: notes changed",
            "Lemon headband: done", "CMCA identity: renamed from CMCA brand identity",
            "added Fresh <b>start</b> (due 2027-02-01)", "deleted Premier utility bike",
        ]

        // A run that fails part way (the token refused) writes nothing and remembers nothing.
        fake.injectOnEveryRequest(.status(401, type: "AUTHENTICATION_REQUIRED", message: "Authentication required"))
        let failed = try run.run(["changes"])
        assertFailure(failed, status: 77, "")
        fake.injectOnEveryRequest(nil)
        let peeked = try run.run(["changes", "--peek"])
        XCTAssertEqual(Set(peeked.lines), Set(expected), peeked.stdout)
        let json = try run.run(["changes", "--json"])
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.count, 5, "one object a project")
        let coffee = try XCTUnwrap(objects.first { $0["name"] as? String == "Coffee packaging" })
        XCTAssertEqual(coffee["change"] as? String, "changed")
        let due = try XCTUnwrap((coffee["fields"] as? [String: Any])?["due"] as? [String: Any])
        XCTAssertEqual(due["from"] as? String, "2020-10-30")
        XCTAssertEqual(due["to"] as? String, "2027-01-15")
        let lemon = try XCTUnwrap(objects.first { $0["name"] as? String == "Lemon headband" })
        let complete = (lemon["fields"] as? [String: Any])?["complete"] as? [String: Any]
        XCTAssertEqual(complete?["to"] as? Bool, true)
        XCTAssertEqual(Set(objects.compactMap { $0["change"] as? String }), ["changed", "added", "deleted"])
        XCTAssertEqual(try run.run(["changes"]).stdout, "", "reported once, by the run that wrote them out")
    }

    func testAProjectLeavingTheFiltersChangedAndOneInAnotherTableIsNoSnapshot() throws {
        try startFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["changes", "--category", "brand identity"]).status, 0)
        XCTAssertEqual(try run.run(["update", "Flapper brand identity", "--category", "Technology design"]).status, 0)
        let result = try run.run(["changes", "--category", "brand identity"])
        XCTAssertEqual(result.lines, ["Flapper brand identity: category Brand identity → Technology design"])
        XCTAssertEqual(try run.run(["changes", "--category", "Brand Identity"]).stdout, "")
        XCTAssertEqual(snapshots(run).count, 1, "the same filters in another case are the same snapshot")

        // A snapshot that is corrupt, or another table's, is refused by path; --reset starts over.
        let path = try XCTUnwrap(snapshots(run).first)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        for bad in [
            Data("{\"tracker\":".utf8),
            Data(
                String(decoding: good, as: UTF8.self).replacingOccurrences(
                    of: fake.options.baseID, with: "appOTHERBASE00000"
                ).utf8),
        ] {
            try bad.write(to: URL(fileURLWithPath: path))
            let refused = try run.run(["changes", "--category", "brand identity"])
            assertFailure(refused, status: 78, "the snapshot \(path) cannot be trusted")
            XCTAssertTrue(refused.stderr.contains("tracker changes --reset"), refused.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bad, "never replaced behind the user")
        }
        XCTAssertEqual(try run.run(["changes", "--reset", "--category", "brand identity"]).status, 0)
        XCTAssertEqual(snapshots(run), [])
        XCTAssertEqual(try run.run(["changes", "--category", "brand identity"]).stdout, "")
        XCTAssertEqual(snapshots(run).count, 1)
    }

    func testTwoRunsAtOnceReportEachChangeOnce() throws {
        try startFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        for name in ["One", "Two", "Three"] {
            XCTAssertEqual(try run.run(["add", "--name", name, "--due", "2027-03-01"]).status, 0)
        }
        let runs = [try run.start(["changes"]), try run.start(["changes"])]
        var output = ""
        for (process, out, _) in runs {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            output += String(decoding: data, as: UTF8.self)
        }
        XCTAssertEqual(
            output.split(separator: "\n").sorted(),
            ["added One (due 2027-03-01)", "added Three (due 2027-03-01)", "added Two (due 2027-03-01)"])
    }
}
