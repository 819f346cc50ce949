import FakeAirtable
import Foundation
import XCTest

/// Two bases under two accounts in one secrets file, one token kept out of the file, used at a terminal's pace and
/// from cron's bare environment.
final class ProfileTests: FakeAirtableTestCase {
    private var second: FakeAirtable!

    override func tearDown() {
        second?.stop()
        super.tearDown()
    }

    /// A second base under another token, with two projects of its own.
    private func startSecondBase() throws {
        var options = FakeAirtable.Options()
        options.token = "patSECONDsecond00.0000000000000000000000000000000000000000000000000000000000002222"
        options.baseID = "appSECONDbase0002"
        options.table = "Jobs"
        let records = Array(FakeAirtable.recordedProjects.prefix(2))
        second = FakeAirtable(options: options, records: records)
        try second.start()
    }

    /// A file with profile "team" (token in the file) and "client" (token from a command), "team" the default.
    private func writeProfiles(_ process: TrackerProcess, defaultProfile: String? = "team") throws {
        let tokenFile = process.runtimeDirectory + "/client-token"
        try (second.options.token + "\n").write(toFile: tokenFile, atomically: false, encoding: .utf8)
        let text = """
            {\(defaultProfile.map { "\"default\": \"\($0)\"," } ?? "") "timeoutSeconds": 20,
             "profiles": {
               "team": {"token": "\(fake.options.token)", "baseId": "\(fake.options.baseID)",
                        "table": "Design projects", "endpoint": "\(fake.endpoint)"},
               "client": {"tokenCommand": ["cat", "\(tokenFile)"], "baseId": "\(second.options.baseID)",
                          "table": "Jobs", "endpoint": "\(second.endpoint)"}}}
            """
        try text.write(toFile: process.runtimeDirectory + "/Secrets.json", atomically: false, encoding: .utf8)
        chmod(process.runtimeDirectory + "/Secrets.json", 0o600)
    }

    func testTwoBasesUnderTwoProfilesAndATokenFromACommandFromCron() throws {
        try startFake()
        try startSecondBase()
        let process = bareTracker()
        try writeProfiles(process)
        let team = try process.run(["list"])
        XCTAssertEqual(team.status, 0, team.stderr)
        XCTAssertEqual(team.lines.count, 16, "the default profile is the team's base")
        XCTAssertEqual(team.stderr, "")
        // --profile before or after the command, and TRACKER_PROFILE, pick the client's base.
        for arguments in [["--profile", "client", "list"], ["list", "--profile", "client"]] {
            let client = try process.run(arguments)
            XCTAssertEqual(client.status, 0, client.stderr)
            XCTAssertEqual(client.lines.count, 2)
        }
        var cron = process
        cron.environment = [
            "PATH": "/usr/bin:/bin", "HOME": process.runtimeDirectory, "TRACKER_PROFILE": "client",
            "TRACKER_RUNTIME_DIR": process.runtimeDirectory + "/run",
        ]
        let fromCron = try cron.run(["list", "--format", "ndjson"])
        XCTAssertEqual(fromCron.status, 0, fromCron.stderr)
        XCTAssertEqual(fromCron.lines.count, 2)
        XCTAssertEqual(fromCron.stderr, "", "cron mails every stray line")
        // Each fake answers only its own token (any other is a 401), so every listing above used the right one.
        let added = try process.run(["--profile", "client", "add", "--name", "Client job", "--due", "2026-12-01"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("rec"))
        func named(_ fake: FakeAirtable) -> Int {
            fake.records.filter { ($0["fields"] as? [String: Any])?["Name"] as? String == "Client job" }.count
        }
        XCTAssertEqual(named(second), 1)
        XCTAssertEqual(named(fake), 0)
    }

    func testDoctorNamesTheProfileAndAnUnknownOneIs78ListingThem() throws {
        try startFake()
        try startSecondBase()
        let process = bareTracker()
        try writeProfiles(process)
        let doctor = try process.run(["doctor", "--profile", "client"])
        XCTAssertEqual(doctor.status, 0, doctor.stdout + doctor.stderr)
        XCTAssertTrue(doctor.stdout.contains(#"profile   "client" (others: "team")"#), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("(from tokenCommand (cat "), doctor.stdout)
        XCTAssertFalse(doctor.stdout.contains(second.options.token))
        let unknown = try process.run(["list", "--profile", "clinet"])
        assertFailure(unknown, status: 78, #"no profile "clinet""#)
        XCTAssertTrue(
            unknown.stderr.contains(#""client", "team""#) && unknown.stderr.contains("Did you mean \"client\"?"))
        try writeProfiles(process, defaultProfile: nil)
        let undecided = try process.run(["list"])
        assertFailure(undecided, status: 78, "several profiles and no \"default\"")
    }

    func testAFailingOrHangingTokenCommandIs78NamingItAndNothingIsSent() throws {
        try startFake()
        let process = bareTracker()
        let text = """
            {"tokenCommand": ["sh", "-c", "echo 'pass: airtable/work is not in the password store' >&2; exit 1"],
             "baseId": "\(fake.options.baseID)", "table": "Design projects", "endpoint": "\(fake.endpoint)"}
            """
        try text.write(toFile: process.runtimeDirectory + "/Secrets.json", atomically: false, encoding: .utf8)
        chmod(process.runtimeDirectory + "/Secrets.json", 0o600)
        let failed = try process.run(["list"])
        assertFailure(failed, status: 78, "exited with status 1: pass: airtable/work is not in the password store")
        XCTAssertTrue(failed.stderr.contains("tokenCommand sh -c"), failed.stderr)
        let hanging = text.replacingOccurrences(
            of: #"["sh", "-c", "echo 'pass: airtable/work is not in the password store' >&2; exit 1"]"#,
            with: #"["sleep", "60"]"#)
        try hanging.write(toFile: process.runtimeDirectory + "/Secrets.json", atomically: false, encoding: .utf8)
        let stopped = try process.run(["list"], limit: 30)
        assertFailure(stopped, status: 78, "tokenCommand sleep 60 gave no token within 10 s and was stopped")
        XCTAssertLessThan(stopped.seconds, 15)
        XCTAssertEqual(fake.recordLog.count, 0, "nothing was sent without a token")
    }

    func testInitAddsAProfileAndLeavesTheOthers() throws {
        try startFake()
        try startSecondBase()
        let process = bareTracker(["AIRTABLE_ENDPOINT_URL": fake.endpoint])
        let path = process.runtimeDirectory + "/.config/tracker/Secrets.json"
        let first = try process.run(["init", "--base", fake.options.baseID], stdin: fake.options.token + "\n")
        XCTAssertEqual(first.status, 0, first.stderr)
        // A second profile, its token from a command; the flat file's own base becomes profile "main".
        let tokenFile = process.runtimeDirectory + "/client-token"
        try (second.options.token + "\n").write(toFile: tokenFile, atomically: false, encoding: .utf8)
        var client = process
        client.environment["AIRTABLE_ENDPOINT_URL"] = second.endpoint
        let added = try client.run([
            "init", "--profile", "client", "--token-command", "cat '\(tokenFile)'", "--base", second.options.baseID,
            "--table", "Jobs",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains(#"profile "main", still the default"#), added.stderr)
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(saved.contains(second.options.token), "the client's token stays out of the file")
        XCTAssertEqual(
            ((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int), 0o600)
        var plain = process
        plain.environment["AIRTABLE_ENDPOINT_URL"] = nil
        XCTAssertEqual(try plain.run(["list"]).lines.count, 16, "the default is still the first base")
        XCTAssertEqual(try plain.run(["list", "--profile", "client"]).lines.count, 2)
        let again = try client.run([
            "init", "--profile", "client", "--token-command", "cat '\(tokenFile)'", "--base", second.options.baseID,
        ])
        assertFailure(again, status: 64, #"already has a profile "client"; pass --force to replace it"#)
    }
}

/// A project named to attack the terminal, through the real binary's error paths.
final class HostileNameTests: FakeAirtableTestCase {
    func testDidYouMeanLinesCannotRetitleTheTerminal() throws {
        var records = FakeAirtable.recordedProjects
        let hostile = "Evil \u{1B}]0;owned\u{07} \u{9B}2J"
        for index in 0..<2 {
            var fields = records[index]["fields"] as? [String: Any] ?? [:]
            fields["Name"] = index == 0 ? hostile : hostile.uppercased()
            records[index]["fields"] = fields
        }
        try startFake(records: records)
        let process = tracker()
        for arguments in [["update", "evi", "--due", "friday"], ["done", "evil"], ["show", "Evil"]] {
            let result = try process.run(arguments)
            XCTAssertNotEqual(result.status, 0)
            XCTAssertTrue(result.stderr.hasPrefix("tracker: "), result.stderr)
            XCTAssertFalse(
                result.stderr.unicodeScalars.contains {
                    $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value)
                },
                result.stderr.debugDescription)
            XCTAssertTrue(
                result.stderr.contains("Evil ^[]0;owned^G <U+009B>2J") || result.stderr.contains("EVIL ^[]0;OWNED^G"),
                result.stderr)
        }
    }
}
