import FakeAirtable
import Foundation
import XCTest

/// `tracker edit` (docs/contract.md "edit") with scripted editors: the form goes out, what the script left comes back.
final class EditTests: FakeAirtableTestCase {
    private var directory = ""

    override func setUp() {
        super.setUp()
        directory = NSTemporaryDirectory() + "tracker-editor-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    /// An editor: a shell script that saves what it was given (path, mode, text) beside itself, then runs `body`
    /// with the form's path in `$1`.
    private func editor(_ body: String) throws -> String {
        let script = directory + "/editor-\(UUID().uuidString.prefix(8))"
        let text = """
            #!/bin/sh
            # The form's path comes last, after any words EDITOR holds.
            for last; do :; done; set -- "$last"
            printf '%s' "$1" > "\(directory)/path"
            stat -c %a "$1" > "\(directory)/mode"
            cat "$1" > "\(directory)/form"
            \(body)
            """
        try text.write(toFile: script, atomically: false, encoding: .utf8)
        chmod(script, 0o755)
        return script
    }

    private func saved(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    private func fields(_ id: String) -> [String: Any] {
        fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any] ?? [:]
    }

    private var patches: [FakeAirtable.LogEntry] { fake.recordLog.filter { $0.method == "PATCH" } }

    private func patchedFields(_ entry: FakeAirtable.LogEntry) throws -> [String: Any] {
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(entry.body.utf8)) as? [String: Any])
        let records = try XCTUnwrap(body["records"] as? [[String: Any]])
        return try XCTUnwrap(records.first?["fields"] as? [String: Any])
    }

    /// The kept file a failure's second line names, after checking it is private.
    private func keptText(_ stderr: String) throws -> String {
        let line = try XCTUnwrap(stderr.split(separator: "\n").dropFirst().first.map(String.init), stderr)
        let range = try XCTUnwrap(line.range(of: "kept in "), line)
        var path = String(line[range.upperBound...])
        path = String(path.prefix { $0 != ";" && $0 != " " })
        if path.hasSuffix(".") { path.removeLast() }
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600, path)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    private let lemon = "recZ2UzQoJcTTXjws"

    func testASavedChangeSendsOnlyWhatChangedInOnePatchThroughAPrivateFileThatIsRemoved() throws {
        try startFake()
        let script = try editor(
            #"""
            sed -i 's/^Due: .*/Due: 2026-12-24/; s/^Notes:.*/Notes:\nFirst line\n# not a comment: notes run to the end/' "$1"
            """#)
        let result = try tracker(["EDITOR": script + " --wait"]).run(["edit", "lemon HEADBAND"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, lemon + "\n")
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(saved("mode"), "600\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: saved("path")), "the form's file is removed")
        let form = saved("form")
        XCTAssertTrue(form.hasPrefix("# Editing \"Lemon headband\" (\(lemon))"), form)
        for line in ["Name: Lemon headband", "Kickoff: 2020-10-18", "Due: 2020-11-01", "Complete: no"] {
            XCTAssertTrue(form.contains("\n" + line + "\n"), "\(line) in\n\(form)")
        }
        XCTAssertEqual(patches.count, 1)
        let sent = try patchedFields(try XCTUnwrap(patches.first))
        XCTAssertEqual(Set(sent.keys), ["Due date", "Notes"])
        XCTAssertEqual(sent["Due date"] as? String, "2026-12-24")
        XCTAssertEqual(fields(lemon)["Notes"] as? String, "First line\n# not a comment: notes run to the end")
    }

    func testUnchangedOrEmptiedSendsNothing() throws {
        try startFake()
        let unchanged = try tracker(["EDITOR": "true"]).run(["edit", lemon])
        XCTAssertEqual(unchanged.status, 0, unchanged.stderr)
        XCTAssertEqual(unchanged.stdout, "")
        XCTAssertEqual(unchanged.stderr, "tracker: no changes\n")
        let emptied = try tracker(["EDITOR": try editor(#": > "$1""#)]).run(["edit", lemon])
        XCTAssertEqual(emptied.status, 0, emptied.stderr)
        XCTAssertEqual(emptied.stderr, "tracker: no changes: the form was emptied\n")
        let commentsOnly = try tracker(["EDITOR": try editor(#"sed -i '/^[^#]/d' "$1""#)]).run(["edit", lemon])
        XCTAssertEqual(commentsOnly.stderr, "tracker: no changes: the form was emptied\n")
        XCTAssertTrue(patches.isEmpty)
    }

    func testAnEditorThatFailsSendsNothingAndKeepsWhatWasTyped() throws {
        try startFake()
        assertFailure(try tracker(["EDITOR": "false"]).run(["edit", lemon]), status: 1, "the editor (false) exited")
        let typed = try tracker(["EDITOR": try editor("sed -i 's/^Due: .*/Due: 2027-03-01/' \"$1\"; exit 3")])
            .run(["edit", lemon])
        assertFailure(typed, status: 1, "exited with status 3, so nothing was written")
        XCTAssertTrue(try keptText(typed.stderr).contains("\nDue: 2027-03-01\n"))
        let missing = try tracker(["EDITOR": "no-such-editor-here --wait"]).run(["edit", lemon])
        assertFailure(missing, status: 1, "the editor (no-such-editor-here --wait) could not be started")
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        // As from cron: no terminal and no editor named; vi would only print escape codes.
        var cron = tracker()
        cron.environment["EDITOR"] = nil
        cron.environment["VISUAL"] = nil
        assertFailure(try cron.run(["edit", lemon]), status: 64, "edit needs an editor")
        XCTAssertTrue(patches.isEmpty)
    }

    /// The network fails after the editor closes (the write, or the read before it): what was typed is not lost.
    func testAWriteThatFailsOnTheNetworkKeepsWhatWasTyped() throws {
        try startFake()
        let run = try configuredTracker(#""retryBudgetSeconds": 1, "timeoutSeconds": 2"#)
        // The editor waits for the test to break the network, then saves a change.
        let go = directory + "/go"
        let script = try editor(
            """
            while [ ! -e "\(go)" ]; do sleep 0.05; done
            sed -i 's/^Due: .*/Due: 2027-04-01/' "$1"
            """)
        var shell = run
        shell.environment["EDITOR"] = script
        let (process, _, err) = try shell.start(["edit", lemon])
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: directory + "/path") && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        fake.injectOnEveryRequest(.reset)
        _ = FileManager.default.createFile(atPath: go, contents: Data())
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        fake.injectOnEveryRequest(nil)
        XCTAssertEqual(process.terminationStatus, 69, stderr)
        XCTAssertTrue(stderr.hasPrefix("tracker: "), stderr)
        XCTAssertTrue(try keptText(stderr).contains("\nDue: 2027-04-01\n"), stderr)
        XCTAssertTrue(patches.isEmpty)
        XCTAssertEqual(fields(lemon)["Due date"] as? String, "2020-11-01")
    }

    // MARK: - edit --task

    private func startWithTasks() throws {
        var options = FakeAirtable.Options()
        options.tasks = TasksTests.tasks
        options.user = (TasksTests.leslie.id, nil)
        try startFake(options: options)
    }

    private func task(_ id: String) -> [String: Any] {
        fake.records(inTable: "Tasks").first { $0["id"] as? String == id }?["fields"] as? [String: Any] ?? [:]
    }

    func testEditingATaskSendsOnlyWhatChangedAndChecksItAsTaskUpdateDoes() throws {
        try startWithTasks()
        let script = try editor(#"sed -i 's/^Estimate: .*/Estimate: 1w/; s/^Completed: no/Completed: yes/' "$1""#)
        let result = try tracker(["EDITOR": script]).run([
            "edit", "--task", "Kickoff meeting", "--project", "CMCA brand identity",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "recTASKkickoff002\n")
        XCTAssertTrue(
            saved("form").contains(
                "\nName: Kickoff meeting\nAssignee: \(TasksTests.leslie.email)\nEstimate: 0.5\nCompleted: no\nNotes:\n"),
            saved("form"))
        XCTAssertEqual(
            try patchedFields(try XCTUnwrap(patches.last)).keys.sorted(), ["Completed", "Time estimate (days)"])
        XCTAssertEqual(task("recTASKkickoff002")["Time estimate (days)"] as? Double, 5)
        XCTAssertEqual(task("recTASKkickoff002")["Completed"] as? Bool, true)

        let bad = try tracker(["EDITOR": try editor(#"sed -i 's/^Estimate: .*/Estimate: 1.25/' "$1""#)]).run([
            "edit", "--task", "recTASKdieline001",
        ])
        assertFailure(bad, status: 64, "--estimate 1.25: Time estimate (days) takes 1 decimal place")
        XCTAssertTrue(try keptText(bad.stderr).contains("\nEstimate: 1.25\n"))
        let unknown = try tracker(["EDITOR": try editor(#"sed -i 's/^Name:/Colour: red\nName:/' "$1""#)]).run([
            "edit", "--task", "recTASKdieline001",
        ])
        assertFailure(unknown, status: 64, "the form has no field \"Colour\"")
        XCTAssertEqual(patches.count, 1, "nothing more written")
    }

    func testATaskFieldChangedInAirtableAndHereIsAConflict() throws {
        try startWithTasks()
        let binary = TrackerProcess.binary.path
        let conflicting = try editor(
            """
            AIRTABLE_TOKEN="\(fake.options.token)" "\(binary)" task update recTASKdieline001 --estimate 3 -q
            sed -i 's/^Estimate: .*/Estimate: 4/' "$1"
            """)
        let result = try tracker(["EDITOR": conflicting]).run(["edit", "--task", "Dieline and proofs"])
        assertFailure(result, status: 64, #"Estimate is "3" in Airtable, "4" here"#)
        XCTAssertTrue(try keptText(result.stderr).contains("\nEstimate: 4\n"))
        XCTAssertEqual(task("recTASKdieline001")["Time estimate (days)"] as? Double, 3, "the other shell's value kept")
    }

    func testAValueThatFailsItsCheckOffATerminalIs64NamingTheFieldAndKeepsTheText() throws {
        try startFake()
        let script = try editor(
            #"sed -i 's/^Due: .*/Due: 2026-02-30/; s/^Notes:/Colour: red\nNotes:/' "$1""#)
        let result = try tracker(["EDITOR": script]).run(["edit", lemon])
        assertFailure(result, status: 64, "line ")
        XCTAssertTrue(result.stderr.contains("the form has no field \"Colour\""), result.stderr)
        let fixedForm = try tracker([
            "EDITOR": try editor(#"sed -i 's/^Due: .*/Due: 2026-02-30/; s/^Category: .*/Category: nope/' "$1""#)
        ])
        .run(["edit", lemon])
        assertFailure(fixedForm, status: 64, "Category: unknown category \"nope\"")
        XCTAssertTrue(fixedForm.stderr.contains("Due: \"2026-02-30\" is not a real date"), fixedForm.stderr)
        XCTAssertEqual(fixedForm.stderr.split(separator: "\n").count, 2, fixedForm.stderr)
        XCTAssertTrue(try keptText(fixedForm.stderr).contains("\nDue: 2026-02-30\n"))
        XCTAssertTrue(patches.isEmpty)
        XCTAssertEqual(fields(lemon)["Due date"] as? String, "2020-11-01")
    }

    func testAFieldChangedInAirtableAndHereIsAConflictAndOneChangedOnlyThereIsKept() throws {
        try startFake()
        let run = tracker()
        let binary = TrackerProcess.binary.path
        // The second shell: someone changes the project while the editor is open (with a token of its own: tracker
        // passes none to the programs it starts).
        let conflicting = try editor(
            """
            AIRTABLE_TOKEN="\(fake.options.token)" "\(binary)" update \(lemon) --due 2026-12-20 -q
            sed -i 's/^Due: .*/Due: 2027-01-09/; s/^Kickoff: .*/Kickoff: 2020-10-19/' "$1"
            """)
        var shell = run
        shell.environment["EDITOR"] = conflicting
        let result = try shell.run(["edit", lemon])
        assertFailure(result, status: 1, #"Due is "2026-12-20" in Airtable, "2027-01-09" here"#)
        XCTAssertTrue(try keptText(result.stderr).contains("\nKickoff: 2020-10-19\n"))
        XCTAssertEqual(patches.count, 1, "only the other shell's update")
        XCTAssertEqual(fields(lemon)["Kickoff date"] as? String, "2020-10-18")

        let elsewhere = try editor(
            """
            AIRTABLE_TOKEN="\(fake.options.token)" "\(binary)" update \(lemon) --notes "from the other shell" -q
            sed -i 's/^Kickoff: .*/Kickoff: 2020-10-19/; s/^Due: .*/Due: 2026-12-20/' "$1"
            """)
        shell.environment["EDITOR"] = elsewhere
        let kept = try shell.run(["edit", lemon])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertEqual(patches.count, 3)
        XCTAssertEqual(Set(try patchedFields(patches[2]).keys), ["Kickoff date"], "Due already holds 2026-12-20")
        XCTAssertEqual(fields(lemon)["Notes"] as? String, "from the other shell")
        XCTAssertEqual(fields(lemon)["Kickoff date"] as? String, "2020-10-19")
    }

    func testOnATerminalAnInvalidFormComesBackWithTheErrorsAtTheTop() throws {
        try startFake()
        let script = try editor(
            """
            n=$(cat "\(directory)/rounds" 2>/dev/null || echo 0); echo $((n + 1)) > "\(directory)/rounds"
            if [ "$n" = 0 ]; then sed -i 's/^Due: .*/Due: someday/' "$1"; exit 0; fi
            cp "$1" "\(directory)/second"
            sed -i 's/^Due: .*/Due: 2026-12-31/' "$1"
            """)
        let (status, screen) = try onATerminal(["edit", lemon], tracker(["EDITOR": script]))
        XCTAssertEqual(status, 0, screen)
        XCTAssertEqual(saved("rounds"), "2\n")
        let second = saved("second")
        XCTAssertTrue(second.hasPrefix("# error: Due: \"someday\" is not a date"), second)
        XCTAssertTrue(second.contains("\nDue: someday\n"), "the form as the user left it:\n\(second)")
        XCTAssertEqual(fields(lemon)["Due date"] as? String, "2026-12-31")
        XCTAssertEqual(patches.count, 1)
    }

    func testTheBasesOwnFieldsAreInTheFormAndCheckedAsSetChecksThem() throws {
        var options = FakeAirtable.Options.customisedBase
        options.grantsSchemaAccess = true
        try startFake(records: FakeAirtable.customisedProjects, options: options)
        let id = try XCTUnwrap(fake.records.first?["id"] as? String)
        let run = try configuredTracker(
            CustomisedBaseTests.mapping,
            extra: [
                "EDITOR": try editor(#"sed -i 's/^Budget: .*/Budget: $1,234.50/; s/^Priority: .*/Priority: low/' "$1""#)
            ])
        let result = try run.run(["edit", id])
        XCTAssertEqual(result.status, 0, result.stderr)
        let form = saved("form")
        for label in ["Budget:", "Priority:", "Tags:", "Reviewed:", "Progress:", "Time spent:", "Launch:"] {
            XCTAssertTrue(form.contains("\n" + label), "\(label) in\n\(form)")
        }
        for absent in ["Kickoff:", "Days left:", "Project images:"] {
            XCTAssertFalse(form.contains("\n" + absent), "\(absent) is not writable here:\n\(form)")
        }
        let sent = try patchedFields(try XCTUnwrap(patches.first))
        XCTAssertEqual(Set(sent.keys), ["Budget", "Priority"])
        XCTAssertEqual(sent["Budget"] as? Double, 1234.5)
        XCTAssertEqual(sent["Priority"] as? String, "Low", "the choice's own spelling")
    }
}
