import FakeAirtable
import Foundation
import XCTest

/// `tracker demo` (docs/contract.md "demo"): a base on this machine, no account, and nothing of the user's touched.
final class DemoTests: FakeAirtableTestCase {
    /// A user with settings of their own that the demo must neither use nor change: a secrets file pointing at a
    /// port nobody serves, a token in the environment, and a temporary directory of their own.
    private func user() throws -> (run: TrackerProcess, secrets: String, temporary: String) {
        var run = bareTracker()
        let home = run.environment["HOME"]!
        let secrets = home + "/Secrets.json"
        try
            #"{"token": "patUSERuser000000.0000000000000000000000000000000000000000000000000000000000000001", "baseId": "appUSERbase000001", "table": "Design projects", "endpoint": "http://127.0.0.1:9"}"#
            .write(toFile: secrets, atomically: false, encoding: .utf8)
        chmod(secrets, 0o600)
        let temporary = home + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        run.environment["TRACKER_SECRETS"] = secrets
        run.environment["AIRTABLE_TOKEN"] =
            "patUSERuser000000.0000000000000000000000000000000000000000000000000000000000000002"
        run.environment["TMPDIR"] = temporary
        return (run, secrets, temporary)
    }

    private func assertUntouched(_ user: (run: TrackerProcess, secrets: String, temporary: String), before: Date) throws
    {
        let home = user.run.environment["HOME"]!
        for path in [home + "/.cache", home + "/.local"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(path) was created")
        }
        let modified = try FileManager.default.attributesOfItem(atPath: user.secrets)[.modificationDate] as? Date
        XCTAssertLessThanOrEqual(try XCTUnwrap(modified), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: user.temporary), [], "the demo cleans up")
    }

    func testACommandRunsAgainstTheDemoBaseAndNothingOfTheUsersIsTouched() throws {
        let user = try user()
        let before = Date()
        let listed = try user.run.run(["demo", "--", "list", "--format", "json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stderr.hasPrefix("tracker: this is a demo base"), listed.stderr)
        XCTAssertEqual(listed.stderr.split(separator: "\n").count, 1, listed.stderr)
        let projects = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(projects.count, 16)
        // Dates moved near today: something of each kind to look at.
        let statuses = Set(projects.compactMap { $0["status"] as? String })
        XCTAssertEqual(statuses, ["done", "overdue", "open"], "\(statuses)")
        try assertUntouched(user, before: before)
    }

    func testWritesWorkAndEachCommandGetsAFreshBaseAndItsOwnStatus() throws {
        let user = try user()
        let added = try user.run.run(["demo", "--", "add", "--name", "Tried in the demo", "--due", "friday"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("rec") && added.stdout.hasSuffix("\n"), added.stdout)
        let shown = try user.run.run(["demo", "--", "show", "Tried in the demo"])
        XCTAssertEqual(shown.status, 66, "a fresh base does not have it: \(shown.stderr)")
        XCTAssertTrue(shown.stderr.contains("tracker: no project is named"), shown.stderr)
        let comments = try user.run.run(["demo", "--", "comments", "CMCA brand identity"])
        XCTAssertEqual(comments.status, 0, comments.stderr)
        XCTAssertEqual(comments.lines.count, 3, comments.stdout)
    }

    func testTheShellHasTrackerOnItsPathPointedAtTheDemoUntilItExits() throws {
        var user = try user()
        user.run.environment["SHELL"] = "/bin/sh"
        let before = Date()
        let script = """
            echo "secrets=$TRACKER_SECRETS"
            tracker list --mine --format tsv | wc -l
            tracker done "CMCA brand identity" && tracker list --complete --format tsv | grep -c rec3g0Xxmw2rw3scs
            exit 66
            """
        let result = try user.run.run(["demo"], stdin: script)
        XCTAssertEqual(result.status, 66, "the shell's status: \(result.stderr)")
        XCTAssertTrue(result.stderr.hasPrefix("tracker: this is a demo: 16 projects served on http://127.0.0.1:"))
        let lines = result.lines
        XCTAssertTrue(lines.first?.hasPrefix("secrets=\(user.temporary)/tracker-demo-") == true, result.stdout)
        XCTAssertGreaterThan(Int(lines[1].trimmingCharacters(in: .whitespaces)) ?? 0, 0, "the user leads some")
        XCTAssertEqual(Array(lines.suffix(2)), ["rec3g0Xxmw2rw3scs", "1"])
        try assertUntouched(user, before: before)
    }
}
