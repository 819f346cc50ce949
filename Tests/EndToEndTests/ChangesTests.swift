import FakeAirtable
import Foundation
import XCTest

/// `tracker changes` as cron runs it: nothing the first time, each change once, none lost to a failed run.
final class ChangesTests: FakeAirtableTestCase {
    private func snapshots(_ run: TrackerProcess) -> [String] {
        let directory = (run.environment["HOME"] ?? "") + "/.local/state/tracker"
        // The journal keeps its own directory beside the snapshots.
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0 != "journal" }.map
        {
            directory + "/" + $0
        }
    }

    func testEachChangeIsReportedOnceAndAFailedRunLosesNone() throws {
        try startFake()
        let run = tracker()
        let first = try run.run(["changes"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout + first.stderr, "", "the first run remembers and says nothing off a terminal")
        XCTAssertEqual(fake.recordLog.filter { !$0.path.contains("/webhooks") }.count, 1, "one listing")
        XCTAssertEqual(fake.webhookIDs.count, 1, "the base's webhook, made once, tells the next runs what changed")
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

    /// Runs `tracker changes` with its standard output on `handle` (a full disk, a pipe nobody reads); status and stderr.
    private func changes(_ run: TrackerProcess, into handle: FileHandle, _ arguments: [String] = []) throws -> (
        status: Int32, stderr: String
    ) {
        let process = Process()
        process.executableURL = TrackerProcess.binary
        process.arguments = ["changes"] + arguments
        process.environment = run.environment
        process.currentDirectoryURL = URL(fileURLWithPath: run.runtimeDirectory)
        let err = Pipe()
        process.standardOutput = handle
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "ended by a signal")
        return (process.terminationStatus, stderr)
    }

    /// docs/contract.md "changes": the snapshot is replaced only after the changes are written out, so output that
    /// could not
    /// be written (a full disk) or was not read (a closed pipe) is reported again by the next run.
    func testChangesThatCouldNotBeWrittenOutAreReportedAgain() throws {
        try startFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        let snapshot = try XCTUnwrap(snapshots(run).first)
        XCTAssertEqual(try run.run(["update", "Coffee packaging", "--due", "2027-01-15", "-q"]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: snapshot))

        let full = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        let onFullDisk = try changes(run, into: full)
        try full.close()
        XCTAssertEqual(onFullDisk.status, 1, onFullDisk.stderr)
        XCTAssertTrue(onFullDisk.stderr.hasPrefix("tracker: "), onFullDisk.stderr)
        XCTAssertEqual(onFullDisk.stderr.split(separator: "\n").count, 1, onFullDisk.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: snapshot)), before, "the snapshot kept")

        // A reader that went away (`tracker changes | head -0`): quietly 0, as every command, and nothing remembered.
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        let closed = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let intoClosedPipe = try changes(run, into: closed, ["--format", "ndjson"])
        try closed.close()
        XCTAssertEqual(intoClosedPipe.status, 0, intoClosedPipe.stderr)
        XCTAssertEqual(intoClosedPipe.stderr, "")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: snapshot)), before, "the snapshot kept")

        XCTAssertEqual(try run.run(["changes"]).lines, ["Coffee packaging: due 2020-10-30 → 2027-01-15"])
        XCTAssertEqual(try run.run(["changes"]).stdout, "", "once written out, remembered")
    }

    /// Each set of filters compares against a snapshot of its own: sharing one would report every project outside
    /// the filters as deleted.
    func testEachSetOfFiltersHasASnapshotOfItsOwn() throws {
        var options = FakeAirtable.Options()
        options.user = ("usrSdmrY5yGdbcZzg", nil)  // Leslie Walker, who leads and is on the team of recorded projects
        try startFake(options: options)
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        let filters: [[String]] = [
            ["--mine"], ["--overdue"], ["--due-before", "2020-11-01"], ["--due-within", "30"], ["--complete"],
            ["--incomplete"], ["--category", "Brand identity"], ["--lead", "me"], ["--team", "me"],
            ["--search", "logo"], ["--view", "Completed projects"], ["--mine", "--category", "Brand identity"],
        ]
        for (number, filter) in filters.enumerated() {
            let first = try run.run(["changes"] + filter)
            XCTAssertEqual(first.status, 0, first.stderr)
            XCTAssertEqual(first.stdout, "", "\(filter): a first run remembers and reports nothing")
            XCTAssertEqual(snapshots(run).count, number + 2, "\(filter) has a snapshot of its own")
        }
        for filter in [[]] + filters {
            XCTAssertEqual(try run.run(["changes"] + filter).stdout, "", "\(filter): nothing changed")
        }
        XCTAssertEqual(snapshots(run).count, filters.count + 1)
    }

    /// The snapshot is written aside and renamed over: a change replaces the file (a new inode), and a run that fails
    /// while writing it (here, past a file size limit) leaves the old one whole, so the change is reported again.
    func testTheSnapshotIsReplacedWholeOrNotAtAll() throws {
        try startFake()
        let run = tracker()
        XCTAssertEqual(try run.run(["changes"]).status, 0)
        let snapshot = try XCTUnwrap(snapshots(run).first)
        func inode() throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: snapshot)[.systemFileNumber] as? Int
        }
        let first = try inode()
        XCTAssertEqual(try run.run(["done", "Lemon headband", "-q"]).status, 0)
        XCTAssertEqual(try run.run(["changes"]).lines, ["Lemon headband: done"])
        XCTAssertNotEqual(try inode(), first, "replaced by rename, not rewritten in place")

        XCTAssertEqual(try run.run(["reopen", "Lemon headband", "-q"]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: snapshot))
        XCTAssertGreaterThan(before.count, 2048, "larger than the limit below, so writing it must fail")
        var limited = run.environment
        limited["TRACKER"] = TrackerProcess.binary.path
        let failed = try runProgram(
            "/bin/bash", ["-c", #"ulimit -f 2; trap '' XFSZ; exec "$TRACKER" changes 2>&1 >/dev/null"#],
            environment: limited,
            directory: run.runtimeDirectory)
        XCTAssertEqual(failed.status, 1, failed.stdout)
        XCTAssertTrue(failed.stdout.contains("could not be replaced; these changes will be shown again"), failed.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: snapshot)), before, "the old snapshot, whole")
        XCTAssertEqual(try run.run(["changes"]).lines, ["Lemon headband: reopened"])
    }
}
