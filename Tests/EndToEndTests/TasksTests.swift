import FakeAirtable
import Foundation
import XCTest

/// The template's Tasks table (docs/contract.md "Tasks"): `tracker tasks` and `tracker task …` against the fake, as a
/// script and a cron job run them.
final class TasksTests: FakeAirtableTestCase {
    static let coffee = "recPsjO1tkEyBCF7y"  // due 2020-10-30, open
    static let lemon = "recZ2UzQoJcTTXjws"  // due 2020-11-01, open
    static let cmca = "rec3g0Xxmw2rw3scs"  // due 2020-11-07, open
    static let locax = "recv9K4cnpAB0VoMz"  // due 2020-10-17, complete
    static let leslie = (id: "usrSdmrY5yGdbcZzg", email: "katherineduh+collab23@demo.htable.com")
    static let gal = "katherineduh+collab10@demo.htable.com"

    static let tasks: [FakeTaskSpec] = [
        FakeTaskSpec(
            id: "recTASKdieline001", "Dieline and proofs", projects: [coffee], estimate: 2.5, assignee: leslie.email),
        FakeTaskSpec(id: "recTASKkickoff001", "Kickoff meeting", projects: [lemon], estimate: 0.5, assignee: gal),
        FakeTaskSpec(
            id: "recTASKkickoff002", "Kickoff meeting", projects: [cmca], estimate: 0.5, assignee: leslie.email),
        FakeTaskSpec(
            id: "recTASKfinal00001", "Final files", projects: [coffee], estimate: 1, completed: true, assignee: gal),
        FakeTaskSpec(id: "recTASKloose00001", "Loose end", projects: []),
        FakeTaskSpec(
            id: "recTASKhinge00001", "Hinge prototype", projects: [locax], estimate: 3, assignee: leslie.email),
    ]

    private func start(_ configure: (inout FakeAirtable.Options) -> Void = { _ in }) throws {
        var options = FakeAirtable.Options()
        options.tasks = Self.tasks
        options.user = (Self.leslie.id, nil)
        configure(&options)
        try startFake(options: options)
    }

    private func ids(_ result: ProcessResult) -> [String] {
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.lines.map { String($0.prefix { $0 != "\t" }) }
    }

    private var taskRequests: [FakeAirtable.LogEntry] {
        fake.recordLog.filter { $0.path.contains("/tblFAKEtasks00001") || $0.path.hasSuffix("/Tasks") }
    }

    private func formula(_ entry: FakeAirtable.LogEntry) -> String {
        let pairs = entry.query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let value = pairs.first { $0.first == "filterByFormula" }?.last ?? ""
        return value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
    }

    func testOpenTasksComeInTheirProjectsDueOrderFromOneFilteredListing() throws {
        try start()
        let run = tracker()
        let piped = try run.run(["tasks"])
        XCTAssertEqual(
            ids(piped),
            ["recTASKhinge00001", "recTASKdieline001", "recTASKkickoff001", "recTASKkickoff002", "recTASKloose00001"])
        XCTAssertEqual(
            piped.lines[1],
            "recTASKdieline001\tDieline and proofs\tCoffee packaging\t2020-10-30\toverdue\tLeslie Walker\t2.5")
        XCTAssertEqual(piped.lines[4], "recTASKloose00001\tLoose end\t\t\t\t\t")
        // One listing of the Tasks table, filtered on Airtable; then the projects by id, never the whole table.
        let listings = taskRequests
        XCTAssertEqual(listings.count, 1, "\(listings.map(\.query))")
        XCTAssertEqual(formula(listings[0]), "NOT({Completed})")
        let projectReads = fake.recordLog.filter { !taskRequests.map(\.path).contains($0.path) }
        XCTAssertEqual(projectReads.count, 1, "\(fake.recordLog.map(\.path))")
        XCTAssertTrue(
            projectReads.first.map(formula)?.contains("RECORD_ID() = 'recv9K4cnpAB0VoMz'") == true,
            "\(projectReads.map(formula))")

        XCTAssertEqual(ids(try run.run(["tasks", "--done"])), ["recTASKfinal00001"])
        XCTAssertEqual(ids(try run.run(["tasks", "--all"])).count, 6)
        XCTAssertEqual(
            ids(try run.run(["tasks", "--search", "KICKOFF"])), ["recTASKkickoff001", "recTASKkickoff002"])
        XCTAssertEqual(ids(try run.run(["tasks", "--limit", "2"])), ["recTASKhinge00001", "recTASKdieline001"])

        let csv = try run.run(["tasks", "--format", "csv", "--columns", "name,project-name,estimate"])
        XCTAssertEqual(
            csv.stdout.components(separatedBy: "\r\n").prefix(2),
            ["name,project-name,estimate", "Hinge prototype,Locax notebook computer,3"])

        let json = try run.run(["tasks", "--json", "--all"])
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let final = try XCTUnwrap(objects.first { $0["id"] as? String == "recTASKfinal00001" })
        XCTAssertEqual(
            Set(final.keys),
            ["id", "name", "project", "projects", "complete", "estimate", "assignee", "notes", "createdTime", "fields"])
        XCTAssertEqual(final["complete"] as? Bool, true)
        XCTAssertEqual(final["estimate"] as? Double, 1)
        let project = try XCTUnwrap(final["project"] as? [String: Any])
        XCTAssertEqual(project["name"] as? String, "Coffee packaging")
        XCTAssertEqual(project["status"] as? String, "overdue")
        XCTAssertEqual((final["assignee"] as? [String: Any])?["email"] as? String, Self.gal)
        let loose = try XCTUnwrap(objects.first { $0["id"] as? String == "recTASKloose00001" })
        XCTAssertTrue(loose["project"] is NSNull)
        XCTAssertEqual(loose["projects"] as? [String], [])
        let ndjson = try run.run(["tasks", "--format", "ndjson"])
        XCTAssertEqual(ndjson.lines.count, 5)
    }

    func testAProjectsTasksAreReadByTheIdsItsTasksFieldLists() throws {
        try start()
        let result = try tracker().run(["tasks", "coffee PACKAGING", "--all"])
        XCTAssertEqual(ids(result), ["recTASKdieline001", "recTASKfinal00001"])
        let reads = taskRequests
        XCTAssertEqual(reads.count, 1)
        let sent = formula(reads[0])
        XCTAssertTrue(
            sent.contains("RECORD_ID() = 'recTASKdieline001'") && sent.contains("RECORD_ID() = 'recTASKfinal00001'"),
            sent)
        XCTAssertFalse(sent.contains("Design project") || sent.contains("Coffee"), "never by the link's names: \(sent)")
    }

    func testMineIsTheTokensUserMatchedById() throws {
        try start()
        let run = tracker()
        XCTAssertEqual(
            ids(try run.run(["tasks", "--mine"])), ["recTASKhinge00001", "recTASKdieline001", "recTASKkickoff002"])
        XCTAssertEqual(ids(try run.run(["tasks", "--assignee", "me"])).count, 3)
        XCTAssertEqual(ids(try run.run(["tasks", "--assignee", Self.gal.uppercased()])), ["recTASKkickoff001"])
        XCTAssertEqual(
            ids(try run.run(["tasks", "--assignee", "gal samari", "--all"])),
            ["recTASKfinal00001", "recTASKkickoff001"])
        XCTAssertEqual(ids(try run.run(["tasks", "--assignee", "Gal"])), [], "a whole name, not part of one")
    }

    /// An assignee by name is one user: a name two collaborators share is 64 listing their emails.
    func testAnAssigneeNameTwoPeopleShareIsAskedForByEmail() throws {
        let twin = ["id": "usrTWINtwin000001", "name": "Gal Samari", "email": "gal.two@example.com"]
        let project: [String: Any] = [
            "id": "recTWINPROJECT001", "createdTime": "2026-01-01T00:00:00.000Z",
            "fields": ["Name": "Twin project", "Due date": "2026-12-24", "Project lead": twin],
        ]
        var options = FakeAirtable.Options()
        options.tasks =
            Self.tasks + [
                FakeTaskSpec(
                    id: "recTASKtwin000001", "Twin task", projects: ["recTWINPROJECT001"],
                    assignee: "gal.two@example.com")
            ]
        try startFake(records: FakeAirtable.recordedProjects + [project], options: options)
        let run = tracker()
        assertFailure(
            try run.run(["tasks", "--assignee", "gal samari"]), status: 64,
            "2 collaborators are named \"gal samari\": gal.two@example.com, \(Self.gal); give one email")
        XCTAssertEqual(ids(try run.run(["tasks", "--assignee", "GAL.TWO@example.com"])), ["recTASKtwin000001"])
    }

    func testOnATerminalTasksAreGroupedUnderTheirProjectsWithBoxes() throws {
        try start()
        var run = tracker()
        run.environment["LANG"] = "C.UTF-8"
        let (status, shown) = try onATerminal(["tasks", "--all"], run, columns: 80)
        XCTAssertEqual(status, 0, shown)
        let text = shown.replacingOccurrences(of: "\r\n", with: "\n")
        XCTAssertTrue(text.contains("Coffee packaging\u{1B}[0m  due 2020-10-30  \u{1B}[31moverdue\u{1B}[0m\n"), text)
        XCTAssertTrue(text.contains("  ✓ Final files"), text)
        XCTAssertTrue(text.contains("  ☐ Dieline and proofs  Leslie Walker  2.5d\n"), text)
        XCTAssertTrue(text.contains("No project\u{1B}[0m\n  ☐ Loose end\n"), text)
        XCTAssertTrue(text.contains("6 tasks, 7.5 days estimated, 4 in overdue projects"), text)
        // Without UTF-8, ASCII boxes.
        run.environment["LANG"] = "C"
        let (_, plain) = try onATerminal(["tasks", "--all", "--color", "never"], run, columns: 80)
        XCTAssertTrue(plain.contains("  [x] Final files"), plain)
        XCTAssertTrue(plain.contains("Coffee packaging  due 2020-10-30  overdue"), plain)
    }

    func testListColumnsTasksAndDaysLeftCostOneListingOfTheTasksTable() throws {
        try start()
        let run = tracker()
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let before = fake.recordLog.count
        let result = try run.run(["list", "--columns", "name,tasks,days-left"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.lines.contains("Coffee packaging\t1/2\t2.5"), result.stdout)
        XCTAssertTrue(result.lines.contains("Locax notebook computer\t0/1\t3"), result.stdout)
        XCTAssertTrue(result.lines.contains("Premier utility bike\t0/0\t0"), result.stdout)
        let sent = Array(fake.recordLog.dropFirst(before))
        XCTAssertEqual(sent.count, 2, "the projects and the tasks, one listing each: \(sent.map(\.path))")
    }

    func testAddingATaskLinksItOnceAndAirtableKeepsTheProjectsTasksField() throws {
        try start()
        let run = tracker()
        let added = try run.run([
            "task", "add", "Lemon headband", "Print proofs", "--assignee", "me", "--estimate", "1w", "--notes",
            "two\nlines",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        let id = added.stdout.trimmingCharacters(in: .newlines)
        XCTAssertTrue(id.hasPrefix("rec") && id.count == 17, id)
        let stored = try XCTUnwrap(
            fake.records(inTable: "Tasks").first { $0["id"] as? String == id }?["fields"] as? [String: Any])
        XCTAssertEqual(stored["Design project"] as? [String], [Self.lemon])
        XCTAssertEqual(stored["Time estimate (days)"] as? Double, 5)
        XCTAssertEqual((stored["Assignee"] as? [String: Any])?["id"] as? String, Self.leslie.id)
        XCTAssertEqual(stored["Notes"] as? String, "two\nlines")
        let project = fake.records.first { $0["id"] as? String == Self.lemon }?["fields"] as? [String: Any]
        XCTAssertEqual(project?["Tasks"] as? [String], ["recTASKkickoff001", id])
        XCTAssertEqual(ids(try run.run(["tasks", "Lemon headband"])), ["recTASKkickoff001", id])

        // --if-absent within the project: the same name there is found, not made again.
        let again = try run.run(["task", "add", "Lemon headband", "Print proofs", "--if-absent"])
        XCTAssertEqual(again.stdout, id + "\n", again.stderr)
        XCTAssertEqual(
            fake.records(inTable: "Tasks").filter {
                ($0["fields"] as? [String: Any])?["Name"] as? String == "Print proofs"
            }.count, 1)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" && !$0.path.hasSuffix("/listRecords") }.count, 1)

        let dry = try run.run(["task", "add", "CMCA brand identity", "Brief", "--estimate", "0.5", "--dry-run"])
        XCTAssertEqual(
            dry.stdout,
            #"{"fields":{"Name":"Brief","Time estimate (days)":0.5,"Design project":["rec3g0Xxmw2rw3scs"]}}"# + "\n")
        let json = try run.run(["task", "show", "Print proofs", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["project"] as? [String: Any])?["name"] as? String, "Lemon headband")
    }

    /// Exactly once: the create is applied but its answer lost; tracker looks for the task instead of sending it again.
    func testACreateWhoseAnswerIsLostIsLookedForNeverSentTwice() throws {
        try start()
        let run = tracker()
        // 1: the project's lookup; 2: the POST, applied and its answer dropped.
        fake.inject(.applyThenDrop, onRequest: 2)
        let result = try run.run(["task", "add", "Coffee packaging", "Color check"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let made = fake.records(inTable: "Tasks").filter {
            ($0["fields"] as? [String: Any])?["Name"] as? String == "Color check"
        }
        XCTAssertEqual(made.count, 1, "one task for one command")
        XCTAssertEqual(result.stdout, (made.first?["id"] as? String ?? "?") + "\n")
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" && !$0.path.hasSuffix("/listRecords") }.count, 1)
    }

    func testBadInputIsOneLineAndTheSpecsCodeWithNothingWritten() throws {
        try start()
        let run = tracker()
        for (arguments, status, fragment) in [
            (
                ["task", "add", "Coffee packaging", "X", "--estimate", "-1"], Int32(64),
                "--estimate takes a number of days"
            ),
            (["task", "add", "Coffee packaging", "X", "--estimate", "abc"], 64, "--estimate takes a number of days"),
            (["task", "add", "Coffee packaging", "X", "--estimate", "1.25"], 64, "takes 1 decimal place"),
            (["task", "add", "Coffee packaging", "X", "--assignee", "Nobody Here"], 64, "no collaborator named"),
            (["task", "add", "Coffee packaging", "bell\u{7}name"], 64, "control character (^G)"),
            (
                ["task", "done", "Dieline and proofs", "--project", "Lemon headband"], 66,
                "no task in \"Lemon headband\""
            ),
            (["task", "done", "Kickoff meeting"], 64, "Kickoff meeting"),
            (["task", "show", Self.coffee], 66, "no task has id or name"),
            (["show", "recTASKdieline001"], 66, "no project has id or name"),
            (["task", "frobnicate"], 64, "unknown task verb 'frobnicate'"),
            (["task", "show", "Loose end", "--estimate", "1"], 64, "--estimate is not a flag of 'tracker task show'"),
        ] {
            let result = try run.run(arguments)
            assertFailure(result, status: status, fragment)
            XCTAssertLessThanOrEqual(result.stderr.split(separator: "\n").count, 2, result.stderr)
        }
        let ambiguous = try run.run(["task", "done", "kickoff meeting"])
        XCTAssertTrue(ambiguous.stderr.contains("recTASKkickoff001 (in Lemon headband)"), ambiguous.stderr)
        XCTAssertTrue(ambiguous.stderr.contains("recTASKkickoff002 (in CMCA brand identity)"), ambiguous.stderr)
        XCTAssertTrue(fake.recordLog.allSatisfy { $0.method == "GET" || $0.path.hasSuffix("/listRecords") })
    }

    func testReadingATaskForgivesANameHoldingEveryWordAndAWriteNeverActsOnIt() throws {
        try start()
        let run = tracker()
        let shown = try run.run(["task", "show", "DIELINE", "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.hasPrefix(#"{"id":"recTASKdieline001""#), shown.stdout)
        XCTAssertEqual(try run.run(["open", "--task", "proofs dieline", "--url"]).status, 0, "every word, any order")
        XCTAssertEqual(
            try run.run(["task", "show", "kickoff", "--project", "lemon", "--json"]).stdout.prefix(32),
            #"{"id":"recTASKkickoff001","name""#)
        let several = try run.run(["task", "show", "kickoff"])
        assertFailure(several, status: 66, "no task is named \"kickoff\"")
        let write = try run.run(["task", "done", "dieline"])
        assertFailure(write, status: 66, "no task is named \"dieline\"")
        XCTAssertTrue(write.stderr.contains("Did you mean \"Dieline and proofs\"?"), write.stderr)
        XCTAssertTrue(fake.recordLog.allSatisfy { $0.method == "GET" }, "nothing written on a guess")
    }

    /// On a terminal a write on a guessed task name asks first, and writes only on yes.
    func testOnATerminalAWriteOnAGuessedTaskAsksAndWritesOnlyOnYes() throws {
        try start()
        let run = tracker()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no script") }
        func answering(_ answer: String) throws -> (Int32, String) {
            let command = [TrackerProcess.binary.path, "task", "done", "dieline"].map { "'\($0)'" }.joined(
                separator: " ")
            var environment = run.environment
            environment["TERM"] = "xterm"
            return try runProgram(
                "/bin/bash", ["-c", "printf '\(answer)\\n' | /usr/bin/script -qefc \"\(command)\" /dev/null"],
                environment: environment, directory: run.runtimeDirectory)
        }
        let (declined, screen) = try answering("n")
        XCTAssertEqual(declined, 66, screen)
        XCTAssertTrue(screen.contains(#"Did you mean "Dieline and proofs"? [y/N]"#), screen)
        XCTAssertTrue(fake.recordLog.allSatisfy { $0.method == "GET" }, "nothing written on a no")
        let (accepted, shown) = try answering("y")
        XCTAssertEqual(accepted, 0, shown)
        XCTAssertTrue(shown.contains("recTASKdieline001"), shown)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "PATCH" }.count, 1)
    }

    func testDoneAndReopenSetCompletedOnEveryTaskNamed() throws {
        try start()
        let run = tracker()
        let done = try run.run([
            "task", "done", "Kickoff meeting", "Dieline and proofs", "--project", "CMCA brand identity",
        ])
        assertFailure(done, status: 66, "no task in \"CMCA brand identity\" is named \"Dieline and proofs\"")
        XCTAssertTrue(fake.recordLog.allSatisfy { $0.method == "GET" }, "nothing written when one is not found")
        let ok = try run.run(["task", "done", "Kickoff meeting", "--project", "CMCA brand identity"])
        XCTAssertEqual(ok.stdout, "recTASKkickoff002\n", ok.stderr)
        let fields = { [fake] (id: String) in
            fake!.records(inTable: "Tasks").first { $0["id"] as? String == id }?["fields"] as? [String: Any] ?? [:]
        }
        XCTAssertEqual(fields("recTASKkickoff002")["Completed"] as? Bool, true)
        XCTAssertEqual(
            try run.run(["task", "reopen", "recTASKkickoff002", "recTASKfinal00001"]).lines,
            ["recTASKkickoff002", "recTASKfinal00001"])
        XCTAssertNil(fields("recTASKfinal00001")["Completed"])
        XCTAssertEqual(fake.recordLog.filter { $0.method == "PATCH" }.count, 2, "one request each time")
    }

    func testUpdateChangesOnlyWhatIsGivenAndMoveToRelinksTheTask() throws {
        try start()
        let run = tracker()
        let moved = try run.run([
            "task", "update", "Dieline and proofs", "--move-to", "Lemon headband", "--estimate", "2", "--clear",
            "assignee",
        ])
        XCTAssertEqual(moved.stdout, "recTASKdieline001\n", moved.stderr)
        let patch = try XCTUnwrap(fake.recordLog.last { $0.method == "PATCH" })
        XCTAssertEqual(
            patch.body,
            #"{"records":[{"id":"recTASKdieline001","fields":{"Time estimate (days)":2,"Assignee":null,"Design project":["recZ2UzQoJcTTXjws"]}}]}"#
        )
        let project = { [fake] (id: String) in
            (fake!.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any])?["Tasks"] as? [String]
        }
        XCTAssertEqual(project(Self.coffee), ["recTASKfinal00001"], "Airtable keeps the inverse link")
        XCTAssertEqual(project(Self.lemon), ["recTASKkickoff001", "recTASKdieline001"])
        assertFailure(
            try run.run(["task", "update", "Final files"]), status: 64, "task update needs something to change")
        assertFailure(
            try run.run(["task", "update", "Final files", "--clear", "name"]), status: 64,
            "--clear takes assignee, estimate, notes")
    }

    func testDeleteAsksOnATerminalNeedsYesOffOneAndALostAnswerIsSettledByLooking() throws {
        try start()
        let run = tracker()
        assertFailure(try run.run(["task", "delete", "Loose end"]), status: 64, "pass --yes to delete without asking")
        XCTAssertEqual(fake.records(inTable: "Tasks").count, 6)
        // 1: finding the task; 2: the DELETE, applied and its answer lost: tracker looks, finds it gone, and is done.
        fake.inject(.applyThenDrop, onRequest: 2)
        let deleted = try run.run(["task", "delete", "Loose end", "--yes"])
        XCTAssertEqual(deleted.stdout, "recTASKloose00001\n", deleted.stderr)
        XCTAssertEqual(fake.records(inTable: "Tasks").count, 5)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "DELETE" }.count, 1, "never sent again once it is gone")
        XCTAssertEqual(fake.recordLog.last?.method, "GET", "looked for after the lost answer")
        XCTAssertEqual(try run.run(["task", "delete", "recTASKhinge00001", "--yes", "-q"]).stdout, "")
        XCTAssertEqual(fake.records(inTable: "Tasks").count, 4)
        let project = fake.records.first { $0["id"] as? String == Self.locax }?["fields"] as? [String: Any]
        XCTAssertNil(project?["Tasks"], "the project's link emptied by Airtable")
    }

    func testABaseWithoutTasksOrARenamedTasksTable() throws {
        try start { $0.tasksTable = "To-dos" }
        let run = tracker()
        // Found through the projects' Tasks link, by the table's id, whatever it is called.
        XCTAssertEqual(ids(try run.run(["tasks", "--done"])), ["recTASKfinal00001"])
        let none = try configuredTracker(#""tasks": null"#)
        assertFailure(try none.run(["tasks"]), status: 78, "no Tasks table (\"tasks\": null)")
        assertFailure(try none.run(["task", "done", "Final files"]), status: 78, "no Tasks table")
        let wrong = try configuredTracker(#""tasks": {"table": "Chores"}"#)
        assertFailure(try wrong.run(["tasks"]), status: 78, "\"tasks\".\"table\" names \"Chores\"")
        XCTAssertEqual(try wrong.run(["list"]).status, 0, "a wrong \"tasks\" never stops a command about projects")
        // Without the schema, a Tasks table named wrongly is Airtable's 403, said of that table and its setting.
        fake.stop()
        try start { $0.grantsSchemaAccess = false }
        let unseen = try configuredTracker(#""tasks": {"table": "Chores"}"#)
        let denied = try unseen.run(["tasks"])
        assertFailure(denied, status: 77, "Airtable denied access to table \"Chores\"")
        XCTAssertTrue(denied.stderr.contains("\"tasks\".\"table\" in the secrets file"), denied.stderr)
        let typo = try configuredTracker(#""tasks": {"fields": {"estimat": null}}"#)
        assertFailure(try typo.run(["list"]), status: 78, "unknown word \"estimat\" in \"tasks\".\"fields\"")
    }
}

/// `show`'s progress line (docs/contract.md "Tasks"): the tasks read beside the record when the name is
/// typed, by id after it otherwise; never the whole Tasks table.
final class ShowProgressTests: FakeAirtableTestCase {
    private func start() throws {
        var options = FakeAirtable.Options()
        options.tasks = TasksTests.tasks
        try startFake(options: options)
    }

    func testShowByNameListsTheTasksInOneRoundTripAndJSONCountsThem() throws {
        try start()
        let run = tracker()
        let json = try run.run(["show", "Coffee packaging", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let tasks = try XCTUnwrap(object["tasks"] as? [String: Any], json.stdout)
        XCTAssertEqual(tasks["done"] as? Int, 1)
        XCTAssertEqual(tasks["total"] as? Int, 2)
        XCTAssertEqual(tasks["daysLeft"] as? Double, 2.5)
        // Every request went out before the first answer came back: one round trip, cold.
        let sent = fake.log
        let firstAnswer = try XCTUnwrap(sent.map(\.time).min())
        XCTAssertTrue(sent.allSatisfy { $0.received < firstAnswer + 0.05 }, "\(sent.map(\.path))")
        XCTAssertFalse(
            sent.contains { $0.query.contains("TRUE%28%29") && $0.path.contains("Tasks") }, "never the whole table")

        let (status, shown) = try onATerminal(["show", "Coffee packaging"], run, columns: 100)
        XCTAssertEqual(status, 0, shown)
        XCTAssertTrue(shown.contains("Tasks\u{1B}[0m  1 of 2 done, 2.5 days left"), shown)
        XCTAssertTrue(shown.contains("Dieline and proofs  Leslie Walker  2.5d"), shown)
    }

    func testShowByIDReadsTheTasksByTheIdsTheRecordLists() throws {
        try start()
        let run = tracker()
        XCTAssertEqual(try run.run(["list", "--limit", "1"]).status, 0)  // the schema remembered: a warm run
        // Lemon headband's name is not remembered (the listing stopped at one): its tasks are read by the ids its
        // record lists, after it.
        let before = fake.log.count
        let json = try run.run(["show", TasksTests.lemon, "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["tasks"] as? [String: Any])?["total"] as? Int, 1)
        // The clients' names are read beside the record (its JSON names them), in the same round trip.
        let sent = Array(fake.log.dropFirst(before)).filter { !$0.path.hasSuffix("/tblFAKEclients001") }
        XCTAssertEqual(sent.count, 2, "the record, then its task by id: \(sent.map(\.path))")
        XCTAssertTrue(sent[1].query.contains("RECORD_ID%28%29%20%3D%20%27recTASKkickoff001%27"), sent[1].query)
        // Once a listing has named it, by name beside the record; only the record's own tasks are kept.
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let after = fake.log.count
        let again = try run.run(["show", TasksTests.lemon, "--json"])
        XCTAssertEqual(again.stdout, json.stdout)
        let beside = Array(fake.log.dropFirst(after))
        XCTAssertEqual(beside.count, 2, "\(beside.map(\.path))")
        XCTAssertTrue(beside.contains { $0.query.contains("Lemon%20headband") }, "\(beside.map(\.query))")
        // A project without tasks: none, and no request for them.
        let empty = try run.run(["show", "Premier utility bike", "--json"])
        let none = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((none["tasks"] as? [String: Any])?["total"] as? Int, 0)
    }
}

/// `tracker status` (docs/contract.md "status"): what needs the token's user, as cron mails it.
final class StatusTests: FakeAirtableTestCase {
    func testStatusShowsYourLateProjectsOpenTasksAndWhatIsNewWithin80Columns() throws {
        var options = FakeAirtable.Options()
        options.tasks = TasksTests.tasks
        options.user = (TasksTests.leslie.id, nil)
        try startFake(options: options)
        let run = tracker()
        XCTAssertEqual(
            try run.run([
                "task", "add", "Lemon headband", "A task with a rather long name to be cut at eighty", "--assignee",
                "me",
            ]).status, 0)
        let before = fake.log.count
        let result = try run.run(["status"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.lines.allSatisfy { $0.count <= 80 }, result.stdout)
        XCTAssertEqual(result.lines.first, "Leslie Walker  " + String(result.lines.first?.suffix(10) ?? ""))
        XCTAssertTrue(result.stdout.contains("\nYour projects ("), result.stdout)
        XCTAssertTrue(result.lines.contains { $0.hasPrefix("  overdue   Lemon headband") }, result.stdout)
        XCTAssertFalse(result.stdout.contains("Flapper brand identity"), "complete: nothing to do")
        XCTAssertTrue(result.stdout.contains("Your open tasks (4, 6 days)"), result.stdout)
        XCTAssertTrue(result.lines.contains { $0.hasPrefix("  [ ] Hinge prototype") }, result.stdout)
        XCTAssertFalse(result.stdout.contains("Kickoff meeting                           Lemon"), "Gal's task")
        XCTAssertTrue(result.stdout.contains("New for you in the last 7 days\n  task     A task with"), result.stdout)
        // Both listings at once (the schema remembered by the add); then the tasks' projects by id.
        let sent = Array(fake.log.dropFirst(before))
        XCTAssertLessThanOrEqual(sent.count, 4, "\(sent.map(\.path))")

        let json = try run.run(["status", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["date", "user", "projects", "tasks", "new"])
        XCTAssertEqual((object["user"] as? [String: Any])?["id"] as? String, TasksTests.leslie.id)
        XCTAssertEqual((object["tasks"] as? [[String: Any]])?.count, 4)
        XCTAssertEqual(((object["new"] as? [String: Any])?["tasks"] as? [[String: Any]])?.count, 1)
    }

    func testNothingNeedsYouIsOneLine() throws {
        var options = FakeAirtable.Options()
        options.tasks = []
        options.user = ("usrNOBODY00000001", nil)
        try startFake(options: options)
        let result = try tracker().run(["status"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 1, result.stdout)
        XCTAssertTrue(result.stdout.hasPrefix("Nothing needs you today"), result.stdout)
    }
}

/// docs/contract.md "Naming a project": commands that only read forgive a name that holds every word typed; a write
/// never
/// acts on such a guess.
final class ForgivingNamesTests: FakeAirtableTestCase {
    func testReadingTakesTheOneProjectHoldingEveryWordAndAWriteNeverDoes() throws {
        try startFake()
        let run = tracker()
        let shown = try run.run(["show", "COFFEE", "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.hasPrefix(#"{"id":"recPsjO1tkEyBCF7y","name":"Coffee packaging""#), shown.stdout)
        XCTAssertEqual(try run.run(["show", "identity cmca", "--json"]).status, 0, "every word, in any order")
        XCTAssertEqual(try run.run(["tasks", "locax", "--all"]).lines.count, 2)
        XCTAssertEqual(try run.run(["open", "lemon", "--url"]).status, 0)
        // Several hold every word: each is named (64), never a guess among them.
        let several = try run.run(["show", "brand identity"])
        assertFailure(several, status: 64, "no project is named \"brand identity\", and 6 hold every word of it")
        for write in [["done", "coffee"], ["update", "coffee", "--notes", "x"], ["delete", "coffee", "--yes"]] {
            let result = try run.run(write)
            assertFailure(result, status: 66, "no project is named \"coffee\"")
            XCTAssertTrue(result.stderr.contains("Did you mean \"Coffee packaging\"?"), result.stderr)
        }
        XCTAssertTrue(fake.recordLog.allSatisfy { $0.method == "GET" }, "nothing written on a guess")
    }
}

/// `report`'s section *Open tasks in overdue projects* (docs/contract.md "The digest").
final class ReportTasksTests: FakeAirtableTestCase {
    func testTheOpenTasksOfOverdueProjectsAreGroupedByAssigneeInEveryFormat() throws {
        var options = FakeAirtable.Options()
        options.tasks = TasksTests.tasks
        // The recorded projects are all due in 2020: every open one is overdue.
        try startFake(options: options)
        let run = tracker()
        let text = try run.run(["report", "--days", "3"])
        XCTAssertEqual(text.status, 0, text.stderr)
        // Loose end has no project and Hinge prototype's is done: neither is in an overdue project.
        let section = text.stdout.components(separatedBy: "Open tasks in overdue projects (3)\n").last ?? ""
        XCTAssertEqual(
            section,
            """
              Gal Samari (1)
                Kickoff meeting     Lemon headband       0.5d
              Leslie Walker (2)
                Dieline and proofs  Coffee packaging     2.5d
                Kickoff meeting     CMCA brand identity  0.5d

            """, text.stdout)
        XCTAssertTrue(text.lines.allSatisfy { $0.count <= 80 })
        let json = try run.run(["report", "--format", "json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let tasks = try XCTUnwrap(object["tasks"] as? [[String: Any]])
        XCTAssertEqual(
            Set(tasks.compactMap { $0["id"] as? String }),
            ["recTASKdieline001", "recTASKkickoff001", "recTASKkickoff002"])
        let markdown = try run.run(["report", "--format", "markdown"])
        XCTAssertTrue(
            markdown.stdout.contains(
                "## Open tasks in overdue projects (3)\n\n### Gal Samari (1)\n\n- Kickoff meeting (Lemon headband, 0.5 days)\n"
            ), markdown.stdout)
        let html = try run.run(["report", "--format", "html"])
        XCTAssertTrue(html.stdout.contains("Open tasks in overdue projects (3)</h2>"), html.stdout)
        // Grouped by lead, a lead is the group's heading and not repeated on every row.
        let byLead = try run.run(["report", "--format", "markdown", "--by", "lead"])
        XCTAssertTrue(byLead.stdout.contains("### Leslie Walker (1)\n\n- [Lemon headband]("), byLead.stdout)
        XCTAssertFalse(byLead.stdout.contains("2020-11-01, Leslie Walker)"), byLead.stdout)
        let htmlByLead = try run.run(["report", "--format", "html", "--by", "lead"])
        XCTAssertFalse(htmlByLead.stdout.contains(">Leslie Walker</td>"), htmlByLead.stdout)
    }
}

/// Task names and notes are text from anyone who can edit the base (docs/contract.md "Text that came from Airtable").
final class HostileTaskTextTests: FakeAirtableTestCase {
    func testTaskTextNeverReachesATerminalTSVOrStderrRaw() throws {
        var options = FakeAirtable.Options()
        let hostile = "Evil\u{1B}]0;owned\u{7}\tname\nsecond\u{202E}line"
        options.tasks = [
            FakeTaskSpec(id: "recTASKevil000001", hostile, projects: [TasksTests.coffee], notes: "a\u{1B}[2Jb"),
            FakeTaskSpec(id: "recTASKevil000002", hostile, projects: [TasksTests.lemon]),
        ]
        try startFake(options: options)
        let run = tracker()
        let tsv = try run.run(["tasks"])
        XCTAssertEqual(tsv.lines.count, 2, tsv.stdout)
        XCTAssertTrue(
            tsv.lines[0].hasPrefix("recTASKevil000001\tEvil^[]0;owned^G name second<U+202E>line\t"), tsv.stdout)
        let json = try run.run(["tasks", "--json"])
        let objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(objects.first?["name"] as? String, hostile, "JSON carries the exact value")
        let (_, shown) = try onATerminal(["tasks"], run, columns: 100)
        XCTAssertFalse(shown.contains("\u{1B}]0;"), shown)
        XCTAssertFalse(shown.contains("\u{7}"), shown)
        let (_, one) = try onATerminal(["task", "show", "recTASKevil000001"], run, columns: 100)
        XCTAssertFalse(one.contains("\u{1B}]0;") || one.contains("\u{1B}[2J"), one)
        XCTAssertTrue(one.contains("a^[[2Jb"), one)
        // Two of that name: the ambiguity names them on stderr, controls made visible.
        let ambiguous = try run.run(["task", "done", hostile])
        XCTAssertEqual(ambiguous.status, 64, ambiguous.stderr)
        XCTAssertFalse(ambiguous.stderr.contains("\u{1B}") || ambiguous.stderr.contains("\u{7}"), ambiguous.stderr)
    }
}

/// `comment`, `comments` and `open` take `--task TASK [--project PROJECT]` in place of a project.
final class TaskTargetTests: FakeAirtableTestCase {
    func testATaskIsCommentedOnListedAndOpenedByTheTasksTable() throws {
        var options = FakeAirtable.Options()
        options.tasks = TasksTests.tasks
        try startFake(options: options)
        let run = tracker()
        let added = try run.run(["comment", "--task", "Kickoff meeting", "--project", "Lemon headband", "Agenda sent"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("com"), added.stdout)
        let post = try XCTUnwrap(fake.recordLog.last { $0.method == "POST" })
        XCTAssertEqual(post.path, "/v0/appFAKEbase000001/tblFAKEtasks00001/recTASKkickoff001/comments")
        let listed = try run.run(["comments", "--task", "recTASKkickoff001"])
        XCTAssertEqual(listed.lines.count, 1, listed.stderr)
        XCTAssertTrue(listed.stdout.hasSuffix("\tAgenda sent\n"), listed.stdout)
        XCTAssertEqual(
            try run.run(["open", "--task", "Dieline and proofs", "--url"]).stdout,
            "https://airtable.com/appFAKEbase000001/tblFAKEtasks00001/recTASKdieline001\n")
        assertFailure(try run.run(["comment", "--task", "Kickoff meeting", "x"]), status: 64, "Kickoff meeting")
        assertFailure(
            try run.run(["comments", "--task", "Final files", "Coffee packaging"]), status: 64,
            "comments takes a project or --task TASK, not both")
        assertFailure(try run.run(["open", "--project", "Coffee packaging"]), status: 64, "--project narrows --task")
    }
}

/// TAB after `task`: its verbs, a project after `add`, task names after the others, people after `--assignee`; all
/// from what `tasks` last read, with no request.
final class TaskCompletionTests: FakeAirtableTestCase {
    func testBashCompletesVerbsTaskNamesAndAssignees() throws {
        var options = FakeAirtable.Options()
        options.tasks = TasksTests.tasks
        try startFake(options: options)
        var process = tracker()
        try process.putOnPath()
        XCTAssertEqual(try process.run(["tasks", "--all"]).status, 0)
        XCTAssertEqual(try process.run(["list"]).status, 0)
        let requests = fake.log.count
        let script = try process.run(["completion", "bash"])
        func complete(_ words: [String]) throws -> [String] {
            try bashCompletions(words, script: script.stdout, process)
        }
        XCTAssertEqual(try complete(["tracker", "task", ""]), ["add", "show", "update", "done", "reopen", "delete"])
        XCTAssertEqual(try complete(["tracker", "task", "done", "Kick"]), ["Kickoff\\ meeting"])
        XCTAssertEqual(try complete(["tracker", "task", "add", "Coff"]), ["Coffee\\ packaging"])
        XCTAssertEqual(
            Set(try complete(["tracker", "tasks", "--assignee", ""])), ["me", "Leslie\\ Walker", "Gal\\ Samari"])
        XCTAssertEqual(try complete(["tracker", "task", "update", "X", "--move-to", "Lem"]), ["Lemon\\ headband"])
        XCTAssertEqual(try complete(["tracker", "comments", "--task", "Hin"]), ["Hinge\\ prototype"])
        XCTAssertEqual(fake.log.count, requests, "TAB sends nothing")
    }
}
