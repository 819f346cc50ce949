import FakeAirtable
import Foundation
import XCTest

/// Rules that a one-line break used to leave unnoticed: a lost task create looked for in its own project only, two
/// racing `task add --if-absent` making one task, a short download never put under its name, and an interrupted
/// download leaving nothing behind.
final class GuardedRulesTests: FakeAirtableTestCase {
    static let coffee = "recPsjO1tkEyBCF7y"
    static let lemon = "recZ2UzQoJcTTXjws"

    private func tasks(named name: String) -> [[String: Any]] {
        fake.records(inTable: "Tasks").filter { ($0["fields"] as? [String: Any])?["Name"] as? String == name }
    }

    private func projects(of task: [String: Any]) -> [String] {
        (task["fields"] as? [String: Any])?["Design project"] as? [String] ?? []
    }

    /// A checklist added to each project in turn: the second create is lost before Airtable applies it. Looking for
    /// it finds the first project's task of that name (made a moment ago), which is not this one.
    func testALostTaskCreateIsLookedForInItsOwnProjectOnly() throws {
        try startFake()
        let run = try configuredTracker(#""retryBudgetSeconds": 3"#)
        XCTAssertEqual(try run.run(["list"]).status, 0, "the schema remembered")
        let first = try run.run(["task", "add", Self.coffee, "Checklist"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let posts = fake.recordLog.filter { $0.method == "POST" }.count
        fake.injectOnEveryRequest(nil)
        // The create goes to the Tasks table by its id, as the schema names it.
        fake.inject(.reset, onNextRequestEndingWith: "tblFAKEtasks00001")
        let second = try run.run(["task", "add", Self.lemon, "Checklist"])
        XCTAssertEqual(
            fake.recordLog.filter { $0.method == "POST" }.count, posts + 1, "the lost create is never sent again")
        XCTAssertEqual(
            second.status, 75, "outcome unknown, never the other project's task: \(second.stdout) \(second.stderr)")
        XCTAssertNotEqual(
            second.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            first.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(tasks(named: "Checklist").map(projects), [[Self.coffee]], "the lemon project has none")
    }

    /// Two cron lines racing: both must not find the name absent and both create it.
    func testTwoRacingTaskAddIfAbsentMakeOneTask() throws {
        var options = FakeAirtable.Options()
        options.latency = 0.3
        try startFake(options: options)
        let run = tracker()
        XCTAssertEqual(try run.run(["list"]).status, 0, "the schema remembered for both")
        let racers = try (0..<2).map { _ in try run.start(["task", "add", "--if-absent", Self.coffee, "Weekly review"])
        }
        var printed: [String] = []
        for (process, out, _) in racers {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            printed.append(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(tasks(named: "Weekly review").count, 1, "one task for two racing lines")
        XCTAssertEqual(Set(printed).count, 1, "both print its id: \(printed)")
    }

    /// A download that arrives whole but short is tried again, then one line; nothing is ever under its name.
    func testAShortDownloadIsNeverPutUnderItsName() throws {
        try startFake()
        let process = tracker()
        // A project with this one file only, so every download request is this file's.
        let bare = try XCTUnwrap(
            fake.records.first { ($0["fields"] as? [String: Any])?["Project images"] == nil }?["id"] as? String)
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        fake.attach(bytes, filename: "proof.png", type: "image/png", toRecord: bare, field: "Project images")
        // Once short, then whole: the second try is placed.
        fake.files.inject(.shortBody, onRequest: 1)
        let retried = try process.run(["files", bare, "--download", "once"])
        XCTAssertEqual(retried.status, 0, retried.stderr)
        let once = process.runtimeDirectory + "/once"
        XCTAssertEqual(FileManager.default.contents(atPath: once + "/proof.png"), bytes)
        // Short every time: one line, and nothing under the name, nor a hidden part.
        for number in 1...3 { fake.files.inject(.shortBody, onRequest: number) }
        let failed = try process.run(["files", bare, "--download", "short"])
        XCTAssertNotEqual(failed.status, 0)
        XCTAssertTrue(failed.stderr.hasPrefix("tracker: "), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("arrived with 100000 bytes, not 200000"), failed.stderr)
        let short = process.runtimeDirectory + "/short"
        let left = (try? FileManager.default.contentsOfDirectory(atPath: short)) ?? []
        XCTAssertEqual(left, [], "no part left either: \(left)")
    }

    /// Ctrl-C or SIGTERM during a stalled download: nothing behind, the hidden `.part` file included.
    func testAnInterruptedDownloadLeavesNothingBehind() throws {
        try startFake()
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        fake.attach(bytes, filename: "big.png", type: "image/png", toRecord: Self.coffee, field: "Project images")
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, 143)] {
            let process = tracker()
            for number in 1...4 { fake.files.inject(.stallBody(seconds: 30), onRequest: number) }
            let logged = fake.files.log.count
            let (running, _, _) = try process.start(["files", Self.coffee, "--download", "out"])
            let out = process.runtimeDirectory + "/out"
            let deadline = Date().addingTimeInterval(20)
            // The transfer has started and its part is on disk.
            while Date() < deadline {
                let present = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
                if fake.files.log.count > logged || present.contains(where: { $0.hasSuffix(".part") }) { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Thread.sleep(forTimeInterval: 0.3)
            XCTAssertTrue(
                ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).contains { $0.hasSuffix(".part") },
                "the part is being written")
            kill(running.processIdentifier, signal)
            running.waitUntilExit()
            XCTAssertEqual(running.terminationStatus, status)
            XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [], [], "nothing behind")
        }
    }
}
