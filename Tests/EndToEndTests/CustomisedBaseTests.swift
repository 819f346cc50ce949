import FakeAirtable
import Foundation
import XCTest

/// A base its owner made their own (docs/contract.md "Your base as it is"), through the built binary: "Kickoff date"
/// deleted, "Category" renamed "Type", a "Status" select instead of the Complete checkbox, the owner's own fields
/// (a formula among them) and saved views.
final class CustomisedBaseTests: FakeAirtableTestCase {
    static let mapping =
        #""fields": {"category": "Type", "complete": {"field": "Status", "done": "Done", "open": "In progress"}}"#

    private func startCustomised(schema: Bool = true) throws {
        var options = FakeAirtable.Options.customisedBase
        options.grantsSchemaAccess = schema
        try startFake(records: FakeAirtable.customisedProjects, options: options)
    }

    /// A tracker whose secrets file maps the renamed category and the Status select.
    private func customised(_ members: String = "") throws -> TrackerProcess {
        try configuredTracker(Self.mapping + (members.isEmpty ? "" : ", " + members))
    }

    private func record(_ id: String) -> [String: Any] {
        fake.records.first { $0["id"] as? String == id }?["fields"] as? [String: Any] ?? [:]
    }

    private func record(named name: String) -> (id: String, fields: [String: Any])? {
        fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == name }.map {
            ($0["id"] as! String, $0["fields"] as? [String: Any] ?? [:])
        }
    }

    private func objects(_ result: ProcessResult) throws -> [[String: Any]] {
        try result.lines.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    private var metadataRequests: Int { fake.log.count - fake.recordLog.count }
    /// Creates Airtable applied (a refused one is not one).
    private var creates: Int { fake.recordLog.filter { $0.method == "POST" && $0.status == 200 }.count }

    /// Today as tracker sees it, in the machine's time zone.
    private var today: String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: .current, from: Date())
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    // MARK: - Listing

    func testImportKeysOnTheRenamedCategoryIgnoringCaseWithoutTheSchema() throws {
        try startCustomised(schema: false)
        let run = try customised()
        let coffee = try XCTUnwrap(record(named: "Coffee packaging"))
        XCTAssertEqual(coffee.fields["Type"] as? String, "Brand identity")
        let count = fake.records.count
        try "name,due,category\nCoffee packaging,2027-02-01,BRAND IDENTITY\n".write(
            toFile: run.runtimeDirectory + "/rows.csv", atomically: false, encoding: .utf8)
        let result = try run.run(["import", "rows.csv", "--key", "name,category"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fake.records.count, count, "updated, not created again")
        XCTAssertEqual(record(coffee.id)["Due date"] as? String, "2027-02-01")
        XCTAssertEqual(record(coffee.id)["Type"] as? String, "Brand identity", "the choice is not rewritten in caps")
        let lookup = try XCTUnwrap(fake.recordLog.first { $0.method == "GET" || $0.path.hasSuffix("listRecords") })
        let sent = (lookup.query + lookup.body).removingPercentEncoding ?? ""
        XCTAssertTrue(sent.contains("LOWER({Type})"), sent)
    }

    func testACategoryTypedInAnotherCaseFiltersTheRenamedField() throws {
        try startCustomised()
        let run = try customised()
        let brand = Set(
            fake.records.filter { ($0["fields"] as? [String: Any])?["Type"] as? String == "Brand identity" }.map {
                $0["id"] as! String
            })
        XCTAssertFalse(brand.isEmpty)
        for typed in ["Brand identity", "brand identity", "BRAND IDENTITY"] {
            let result = try run.run(["list", "--category", typed])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(Set(result.lines.map { String($0.prefix { $0 != "\t" }) }), brand, typed)
            let calendar = try run.run(["calendar", "--all", "--category", typed])
            XCTAssertEqual(calendar.status, 0, calendar.stderr)
            let dated = brand.filter { record($0)["Due date"] != nil }
            XCTAssertEqual(calendar.stdout.components(separatedBy: "BEGIN:VEVENT").count - 1, dated.count, typed)
        }
    }

    func testListingPipedAsJSONAndOnATerminal() throws {
        try startCustomised()
        let run = try customised()
        let tsv = try run.run(["list"])
        XCTAssertEqual(tsv.status, 0, tsv.stderr)
        XCTAssertEqual(tsv.stderr, "")
        XCTAssertEqual(tsv.lines.count, 16)
        for line in tsv.lines {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let fields = record(cells[0])
            let due = fields["Due date"] as? String ?? ""
            let status =
                fields["Status"] as? String == "Done" ? "done" : !due.isEmpty && due < today ? "overdue" : "open"
            XCTAssertEqual(cells[3], status, line)
            XCTAssertEqual(cells[4], fields["Type"] as? String, "the category is the renamed Type field")
        }

        let json = try objects(try run.run(["list", "--format", "ndjson"]))
        XCTAssertEqual(json.count, 16)
        for object in json {
            let fields = record(object["id"] as! String)
            XCTAssertTrue(object["kickoff"] is NSNull, "an absent field's key stays, null")
            XCTAssertEqual(object["complete"] as? Bool, fields["Status"] as? String == "Done")
            let own = try XCTUnwrap(object["fields"] as? [String: Any])
            XCTAssertNil(own["Type"], "tracker's own fields are not repeated")
            XCTAssertNil(own["Status"])
            XCTAssertEqual(own["Budget"] as? Double, fields["Budget"] as? Double)
            XCTAssertEqual(own["Priority"] as? String, fields["Priority"] as? String)
            XCTAssertEqual(own["Days left"] as? Double, fields["Days left"] as? Double, "the formula's value")
            XCTAssertEqual(own["Tags"] as? [String], fields["Tags"] as? [String])
        }

        let (status, screen) = try onATerminal(["list", "--color", "never"], run, columns: 120)
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("ID") && screen.contains("CATEGORY") && screen.contains("STATUS"), screen)
        XCTAssertTrue(screen.contains("16 projects: "), screen)
    }

    func testAbsentFieldsAreEmptyAndWhatNeedsThemIs64NamingThem() throws {
        try startCustomised()
        let run = try customised()
        let csv = try run.run(["list", "--columns", "name,kickoff", "--format", "csv"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        XCTAssertTrue(
            csv.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.allSatisfy {
                $0.hasSuffix(",")
            })
        let name = try XCTUnwrap(fake.records.first?["fields"] as? [String: Any])["Name"] as! String
        for (arguments, message) in [
            (["add", "--name", "X", "--due", "friday", "--kickoff", "friday"], "--kickoff needs the kickoff field"),
            (["update", name, "--clear", "kickoff"], "--clear kickoff needs the kickoff field"),
            (["list", "--sort", "kickoff"], "--sort kickoff needs the kickoff field"),
        ] {
            assertFailure(try run.run(arguments), status: 64, message)
        }
        // Without a mapping the renamed Category and the Status select are absent too.
        let bare = try configuredTracker()
        assertFailure(
            try bare.run(["list", "--category", "Brand identity"]), status: 64, "--category needs the category field")
        assertFailure(try bare.run(["done", name]), status: 64, "done needs a completion field")
        assertFailure(try bare.run(["list", "--complete"]), status: 64, "--complete needs the complete field")
        XCTAssertEqual(fake.recordLog.filter { $0.method != "GET" }.count, 0, "nothing was written")
    }

    // MARK: - Completion in a select

    func testAStatusSelectDrivesDoneReopenAndTheFilters() throws {
        try startCustomised()
        let run = try customised()
        let (id, fields) = try XCTUnwrap(
            fake.records.lazy.compactMap { record -> (String, [String: Any])? in
                let fields = record["fields"] as! [String: Any]
                return fields["Status"] as? String == "Todo" ? (record["id"] as! String, fields) : nil
            }.first)
        let name = fields["Name"] as! String
        XCTAssertEqual(try run.run(["done", name]).stdout, id + "\n")
        XCTAssertEqual(record(id)["Status"] as? String, "Done")
        XCTAssertEqual(try objects(try run.run(["show", id, "--json"]))[0]["complete"] as? Bool, true)
        XCTAssertEqual(try run.run(["reopen", name]).stdout, id + "\n")
        XCTAssertEqual(record(id)["Status"] as? String, "In progress", "reopen sets the open choice")

        let done = Set(
            fake.records.filter { ($0["fields"] as! [String: Any])["Status"] as? String == "Done" }.map {
                $0["id"] as! String
            })
        let complete = try run.run(["list", "--complete"])
        XCTAssertEqual(Set(complete.lines.map { String($0.prefix(17)) }), done)
        let incomplete = try run.run(["list", "--incomplete"])
        XCTAssertEqual(incomplete.lines.count, 16 - done.count)
        let overdue = try run.run(["list", "--overdue"])
        XCTAssertTrue(overdue.lines.allSatisfy { !done.contains(String($0.prefix(17))) && $0.contains("\toverdue\t") })

        // Without an "open" choice, reopen empties the select.
        let noOpen = try configuredTracker(
            #""fields": {"category": "Type", "complete": {"field": "Status", "done": "done"}}"#)
        XCTAssertEqual(try noOpen.run(["done", name]).status, 0)
        XCTAssertEqual(record(id)["Status"] as? String, "Done", "sent as the base spells the choice")
        XCTAssertEqual(try noOpen.run(["reopen", name]).status, 0)
        XCTAssertNil(record(id)["Status"])

        // A "done" that is not a choice is a configuration error naming the choices.
        let wrong = try configuredTracker(#""fields": {"complete": {"field": "Status", "done": "Finished"}}"#)
        let refused = try wrong.run(["list"])
        assertFailure(refused, status: 78, #""complete"."done" is "Finished", which is not a choice of "Status""#)
        XCTAssertTrue(refused.stderr.contains(#""Todo", "In progress", "Done""#), refused.stderr)
    }

    // MARK: - --set

    func testSetWritesEveryTypeCheckedAndSpelledAsTheBaseSpellsIt() throws {
        try startCustomised()
        let run = try customised()
        let added = try run.run([
            "add", "--name", "Typed", "--due", "2026-12-01", "--set", "Budget=$1,250.50", "--set", "priority=high",
            "--set", "Tags=WEB, print", "--set", "Website=https://example.com/brief", "--set",
            "Owner email=ana@example.com", "--set", "Reviewed=yes", "--set", "Estimate=2.5", "--set", "Progress=12%",
            "--set", "Rating=4", "--set", "Time spent=1:30", "--set", "Phone=+1 415 555 0100", "--set",
            "Launch=2026-12-01T14:30:00Z", "--set", "Type=brand identity", "--set", "Project team=Sam Epps",
            "--set", "Client=Client 1",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        let (id, fields) = try XCTUnwrap(record(named: "Typed"))
        XCTAssertEqual(added.stdout, id + "\n")
        XCTAssertEqual(fields["Budget"] as? Double, 1250.5)
        XCTAssertEqual(fields["Priority"] as? String, "High")
        XCTAssertEqual(fields["Tags"] as? [String], ["web", "print"])
        XCTAssertEqual(fields["Website"] as? String, "https://example.com/brief")
        XCTAssertEqual(fields["Owner email"] as? String, "ana@example.com")
        XCTAssertEqual(fields["Reviewed"] as? Bool, true)
        XCTAssertEqual(fields["Estimate"] as? Double, 2.5)
        XCTAssertEqual(fields["Progress"] as? Double, 0.12)
        XCTAssertEqual(fields["Rating"] as? Int, 4)
        XCTAssertEqual(fields["Time spent"] as? Double, 5400)
        XCTAssertEqual(fields["Phone"] as? String, "+1 415 555 0100")
        XCTAssertEqual(fields["Launch"] as? String, "2026-12-01T14:30:00.000Z")
        XCTAssertEqual(fields["Type"] as? String, "Brand identity")
        XCTAssertEqual((fields["Project team"] as? [[String: Any]])?.first?["name"] as? String, "Sam Epps")
        XCTAssertEqual((fields["Client"] as? [String])?.count, 1)
        let post = try XCTUnwrap(fake.recordLog.last { $0.method == "POST" })
        XCTAssertFalse(post.body.contains("typecast"), "never typecast")
    }

    func testEveryBadValueIs64NamingTheFieldAndTheFormAndNothingIsSent() throws {
        try startCustomised()
        let run = try customised()
        for (set, message) in [
            ("Budget=lots", #"--set Budget: "lots" is not an amount"#),
            ("Budget=12,5", #"--set Budget: "12,5" is not an amount"#),
            ("Priority=Urgent", #"--set Priority: "Urgent" is not a choice; the choices are "High", "Medium", "Low""#),
            ("Tags=web,radio", #"--set Tags: "radio" is not a choice"#),
            ("Website=not a url", #"--set Website: "not a url" is not a URL"#),
            ("Owner email=ana", #"--set "Owner email": "ana" is not an email address"#),
            ("Reviewed=maybe", #""maybe" is not yes, no, true, false, 1 or 0"#),
            ("Estimate=abc", #"--set Estimate: "abc" is not a number"#),
            ("Progress=lots", #""lots" is not a percentage"#),
            ("Rating=6", #"--set Rating: "6" is not a rating from 1 to 5"#),
            ("Time spent=1:75", #"--set "Time spent": "1:75" is not a duration"#),
            ("Launch=tomorrowish", #""tomorrowish" is not a date and time"#),
            ("Phone=call me", #""call me" is not a phone number"#),
            ("Days left=3", #"--set "Days left": Days left is a formula field, which Airtable computes"#),
            ("Project images=x.png", "Project images is an attachments field, which tracker cannot set"),
            ("Budgit=3", #"--set: the table has no field "Budgit". Did you mean "Budget"?"#),
            ("Budget=", "--set Budget= is empty; to empty a field, use --clear"),
            ("Client=Nobody Inc", #"unknown client "Nobody Inc" (tracker never creates one)"#),
        ] {
            let result = try run.run(["add", "--name", "Bad", "--due", "2026-12-01", "--set", set])
            assertFailure(result, status: 64, message)
            XCTAssertTrue(result.stderr.hasSuffix("Run 'tracker help add' for usage.\n"), result.stderr)
        }
        XCTAssertEqual(creates, 0, "nothing was sent")
        XCTAssertEqual(fake.records.count, 16)
        XCTAssertEqual(
            fake.records(inTable: "Clients").count,
            FakeAirtable.recordedProjects.compactMap {
                ($0["fields"] as? [String: Any])?["Client"] as? [String]
            }.reduce(into: Set<String>()) { $0.formUnion($1) }.count, "no client was created by a typo")
    }

    func testUpdateSetsAndClearsAnyWritableFieldAndTheLastSetWins() throws {
        try startCustomised()
        let run = try customised()
        let (id, fields) = try XCTUnwrap(record(named: "CMCA brand identity"))
        XCTAssertNotNil(fields["Website"])
        let updated = try run.run([
            "update", id, "--set", "Budget=2000", "--set", "priority=low", "--set", "Priority=high", "--clear",
            "Tags,website", "--clear", "Reviewed",
        ])
        XCTAssertEqual(updated.status, 0, updated.stderr)
        XCTAssertEqual(record(id)["Budget"] as? Double, 2000)
        XCTAssertEqual(record(id)["Priority"] as? String, "High")
        XCTAssertNil(record(id)["Tags"])
        XCTAssertNil(record(id)["Website"])
        XCTAssertNil(record(id)["Reviewed"])
        XCTAssertEqual(record(id)["Name"] as? String, "CMCA brand identity", "the rest stays")
        assertFailure(
            try run.run(["update", id, "--clear", "Days left"]), status: 64,
            #"--clear "Days left": Days left is a formula field"#)
        let dry = try run.run(["update", id, "--set", "Rating=5", "--dry-run"])
        XCTAssertEqual(
            dry.stdout,
            "PATCH /v0/appFAKEbase000001/Design%20projects\n" + #"{"records":[{"id":"\#(id)","fields":{"Rating":5}}]}"#
                + "\n")
    }

    // MARK: - show

    func testShowListsTheBasesFieldsFormattedByTypeInTheTablesOrder() throws {
        try startCustomised()
        let run = try customised()
        let shown = try run.run(["show", "CMCA brand identity"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let own = [
            "Budget", "Priority", "Tags", "Website", "Owner email", "Reviewed", "Estimate", "Progress", "Rating",
            "Time spent", "Phone", "Launch", "Days left", "Project images",
        ]
        // After Notes, every one of the base's own fields in the table's order, each value in the one value column: a
        // label longer than the label column has a line of its own above its value. The Tasks link is not among
        // them: the project's tasks end the view.
        let labels = shown.lines.drop { !$0.hasPrefix("  Notes") }.dropFirst().filter { !$0.hasPrefix("            ") }
        XCTAssertEqual(shown.lines.last, "Tasks  none", shown.stdout)
        for (line, label) in zip(labels, own) {
            if label.count <= 9 {
                XCTAssertTrue(
                    line.hasPrefix("  " + label.padding(toLength: 9, withPad: " ", startingAt: 0) + " "), line)
            } else {
                XCTAssertEqual(line, "  " + label)
            }
        }
        for expected in [
            "Budget    $1,000.50", "Priority  High", "Tags      web", "Reviewed  no", "Estimate  0.5", "Progress  0%",
            "Rating    1/5", "Time spent\n            0:30", "Phone     +1 415 555 0100", "Launch    —",
            "Category  Brand identity",
        ] {
            XCTAssertTrue(shown.stdout.contains("  " + expected + "\n"), "\(expected) in \(shown.stdout)")
        }
        XCTAssertFalse(shown.stdout.contains("  Kickoff "), "a field the base lacks is left out, not shown empty")
        XCTAssertTrue(shown.stdout.contains("  Category  Brand identity\n"))
        let days = try XCTUnwrap(record(named: "CMCA brand identity")?.fields["Days left"] as? Double)
        XCTAssertTrue(shown.stdout.contains("  Days left \(FieldText.grouped(days))\n"), shown.stdout)
        let (status, screen) = try onATerminal(["show", "CMCA brand identity", "--color", "never"], run)
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("Budget    $1,000.50"), screen)
    }

    // MARK: - Views

    func testViewsAreAppliedByAirtableWithTrackersFiltersOnTop() throws {
        try startCustomised()
        let run = try customised()
        let active = try objects(try run.run(["list", "--view", "Active", "--format", "ndjson"]))
        let notDone = fake.records.filter { ($0["fields"] as! [String: Any])["Status"] as? String != "Done" }
        XCTAssertEqual(Set(active.map { $0["id"] as! String }), Set(notDone.map { $0["id"] as! String }))
        let dues = active.map { $0["due"] as? String ?? "" }
        XCTAssertEqual(dues, dues.sorted(), "in the view's order")
        XCTAssertTrue(fake.recordLog.last!.query.contains("view=Active"))

        let high = try objects(try run.run(["list", "--view", "high PRIORITY", "--format", "ndjson"]))
        XCTAssertFalse(high.isEmpty)
        XCTAssertTrue(high.allSatisfy { ($0["fields"] as! [String: Any])["Priority"] as? String == "High" })
        let budgets = high.map { ($0["fields"] as! [String: Any])["Budget"] as! Double }
        XCTAssertEqual(budgets, budgets.sorted(by: >))

        let byName = try objects(try run.run(["list", "--view", "Active", "--sort", "name", "--format", "ndjson"]))
        let names = byName.map { $0["name"] as! String }
        XCTAssertEqual(names, names.sorted(), "--sort replaces the view's order")
        let overdue = try objects(try run.run(["list", "--view", "Active", "--overdue", "--format", "ndjson"]))
        XCTAssertTrue(overdue.allSatisfy { ($0["due"] as! String) < today && $0["status"] as? String == "overdue" })
        XCTAssertTrue(Set(overdue.map { $0["id"] as! String }).isSubset(of: Set(active.map { $0["id"] as! String })))

        assertFailure(
            try run.run(["list", "--view", "Nope"]), status: 64,
            #"--view: the table has no view "Nope"; its views are "All projects", "Active", "High priority", "Done""#)
        // A view deleted since the schema was remembered: Airtable's answer makes tracker read it again.
        fake.removeView("Done")
        let before = metadataRequests
        let gone = try run.run(["list", "--view", "Done"])
        assertFailure(gone, status: 64, #"its views are "All projects", "Active", "High priority"."#)
        XCTAssertEqual(metadataRequests, before + 1)
    }

    func testColumnsAndSortTakeTheBasesFieldNames() throws {
        try startCustomised()
        let run = try customised()
        let csv = try run.run(["list", "--columns", "name,budget,PRIORITY,days left,tags", "--format", "csv"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let rows = csv.stdout.components(separatedBy: "\r\n")
        XCTAssertEqual(rows[0], "name,Budget,Priority,Days left,Tags")
        XCTAssertTrue(
            rows.contains { $0.hasPrefix("CMCA brand identity,1000.5,High,") && $0.hasSuffix(",web") }, csv.stdout)
        let sorted = try objects(try run.run(["list", "--sort", "Budget", "--desc", "--format", "ndjson"]))
        let budgets = sorted.map { ($0["fields"] as! [String: Any])["Budget"] as! Double }
        XCTAssertEqual(budgets, budgets.sorted(by: >))
        let (status, screen) = try onATerminal(
            ["list", "--columns", "name,Budget,Rating", "--color", "never"], run, columns: 100)
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("BUDGET") && screen.contains("$1,000.50") && screen.contains("1/5"), screen)
    }

    // MARK: - import

    func testImportTakesTheBasesFieldsAndRoundTripsWhatListWrites() throws {
        try startCustomised()
        let run = try customised()
        let listed = try run.run(["list", "--format", "ndjson"]).stdout
        try listed.write(toFile: run.runtimeDirectory + "/all.ndjson", atomically: false, encoding: .utf8)
        let again = try run.run(["import", "all.ndjson"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(
            again.stdout, "created 0, updated 0, unchanged 16\n", "the formula and attachments are passed over")

        let csv = """
            name,due,Type,Budget,priority,Tags,Reviewed,Launch
            Imported A,2026-12-01,brand identity,"1,200",high,web;print,yes,2026-12-02 09:15
            """
        try csv.write(toFile: run.runtimeDirectory + "/new.csv", atomically: false, encoding: .utf8)
        let created = try run.run(["import", "new.csv"])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertEqual(created.stdout, "created 1, updated 0, unchanged 0\n")
        let fields = try XCTUnwrap(record(named: "Imported A")).fields
        XCTAssertEqual(fields["Budget"] as? Double, 1200)
        XCTAssertEqual(fields["Priority"] as? String, "High")
        XCTAssertEqual(fields["Tags"] as? [String], ["web", "print"])
        XCTAssertEqual(fields["Reviewed"] as? Bool, true)
        XCTAssertEqual(fields["Type"] as? String, "Brand identity")
        XCTAssertNotNil(fields["Launch"] as? String)
        XCTAssertEqual(try run.run(["import", "new.csv"]).stdout, "created 0, updated 0, unchanged 1\n")

        for (text, message) in [
            ("name,due,Days left\nX,2026-12-01,3\n", #"line 1: column "Days left": Days left is a formula field"#),
            (
                "name,due,budget\nX,2026-12-01,$5\nY,2026-12-02,5 apples\n",
                #"line 3: Budget: "5 apples" is not an amount"#
            ),
            ("name,due,Colour\nX,2026-12-01,red\n", #"line 1: unknown column "Colour""#),
            ("name,due,Budget\nX,2026-12-01,lots\n", #"line 2: Budget: "lots" is not an amount"#),
            ("name,due,kickoff\nX,2026-12-01,2026-11-01\n", "line 2: this base has no kickoff field"),
        ] {
            try text.write(toFile: run.runtimeDirectory + "/bad.csv", atomically: false, encoding: .utf8)
            let refused = try run.run(["import", "bad.csv"])
            XCTAssertEqual(refused.status, 65, refused.stderr)
            XCTAssertTrue(refused.stderr.contains(message), refused.stderr)
        }
        XCTAssertEqual(fake.records.count, 17, "nothing more was written")
    }

    // MARK: - The schema remembered

    func testTheSchemaIsRememberedAnHourAndReadAgainBeforeRefusing() throws {
        try startCustomised()
        let run = try customised()
        XCTAssertEqual(try run.run(["list"]).status, 0)
        XCTAssertEqual(metadataRequests, 1)
        XCTAssertEqual(try run.run(["list"]).status, 0)
        XCTAssertEqual(metadataRequests, 1, "remembered")
        let directory = run.runtimeDirectory + "/.cache/tracker"
        // The schema remembered, beside the names file that TAB reads.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("base-") }
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(try permissions(directory), 0o700)
        XCTAssertEqual(try permissions(directory + "/" + files[0]), 0o600)
        XCTAssertFalse(
            try String(contentsOfFile: directory + "/" + files[0], encoding: .utf8).contains(fake.options.token))

        // With the schema remembered, checked values cost no request of their own: one create.
        let requests = fake.log.count
        let added = try run.run([
            "add", "--name", "One trip", "--due", "friday", "--set", "Priority=low", "--set", "Type=technology design",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(fake.log.count, requests + 1)

        // A choice added in Airtable a moment ago is accepted: the schema is read again before refusing it.
        fake.addChoice("Urgent", toField: "Priority")
        let urgent = try run.run(["add", "--name", "Urgent one", "--due", "friday", "--set", "Priority=urgent"])
        XCTAssertEqual(urgent.status, 0, urgent.stderr)
        XCTAssertEqual(record(named: "Urgent one")?.fields["Priority"] as? String, "Urgent")
        XCTAssertEqual(metadataRequests, 2)

        // A choice removed since: Airtable refuses it, the schema is read again, and the value is what is reported.
        fake.removeChoice("Low", fromField: "Priority")
        let low = try run.run(["add", "--name", "Low one", "--due", "friday", "--set", "Priority=Low"])
        assertFailure(
            low, status: 64, #"--set Priority: "Low" is not a choice; the choices are "High", "Medium", "Urgent""#)
        XCTAssertNil(record(named: "Low one"))
        XCTAssertEqual(metadataRequests, 3)

        // A field that became computed since: the recorded 422, then the schema, then the refusal naming the type.
        fake.makeFormula("Estimate", formula: "1")
        let computed = try run.run(["add", "--name", "Est", "--due", "friday", "--set", "Estimate=2"])
        assertFailure(computed, status: 64, "--set Estimate: Estimate is a formula field, which Airtable computes")
        XCTAssertTrue(fake.recordLog.contains { $0.status == 422 }, "Airtable's answer came first")
        XCTAssertNil(record(named: "Est"))

        // An hour later it is read again.
        let path = directory + "/" + files[0]
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let stale = text.replacingOccurrences(
            of: #""readAt":[0-9.e+]+"#, with: "\"readAt\":\(Date().timeIntervalSince1970 - 3700)",
            options: .regularExpression)
        try stale.write(toFile: path, atomically: false, encoding: .utf8)
        let doctor = try run.run(["doctor"])
        XCTAssertTrue(
            doctor.stdout.contains("the schema remembered was 61 minutes old (too old, so read again)"), doctor.stdout)
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let after = metadataRequests
        XCTAssertEqual(try run.run(["list"]).status, 0)
        XCTAssertEqual(metadataRequests, after, "doctor's read was remembered")

        // XDG_CACHE_HOME is where the cache goes when it is set.
        let xdg = try TemporaryPath()
        let elsewhere = try configuredTracker(Self.mapping, extra: ["XDG_CACHE_HOME": xdg.path])
        XCTAssertEqual(try elsewhere.run(["list"]).status, 0)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: xdg.path + "/tracker").filter { $0.hasPrefix("base-") }
                .count, 1)
    }

    // MARK: - Without the schema

    func testWithoutSchemaAccessTheFileSaysWhatIsAbsentAndSetNeedsTheScope() throws {
        try startCustomised(schema: false)
        let unmapped = try customised()
        let kickoff = try unmapped.run(["add", "--name", "K", "--due", "friday", "--kickoff", "friday"])
        assertFailure(kickoff, status: 78, #"has no field "Kickoff date" (tracker's "kickoff")"#)
        XCTAssertTrue(kickoff.stderr.contains(#""kickoff": null"#), kickoff.stderr)

        let run = try configuredTracker(
            #""fields": {"category": "Type", "kickoff": null, "complete": {"field": "Status", "done": "Done"}}"#)
        let listed = try objects(try run.run(["list", "--format", "ndjson"]))
        XCTAssertEqual(listed.count, 16)
        XCTAssertTrue(listed.allSatisfy { $0["kickoff"] is NSNull })
        let set = try run.run(["add", "--name", "S", "--due", "friday", "--set", "Budget=1"])
        assertFailure(
            set, status: 77, "--set Budget is checked against the base's schema, which the token may not read")
        XCTAssertTrue(set.stderr.contains("schema.bases:read"), set.stderr)
        XCTAssertEqual(
            try run.run(["list", "--view", "Active"]).lines.count,
            16 - listed.filter { $0["complete"] as? Bool == true }.count)
        assertFailure(try run.run(["list", "--view", "Nope"]), status: 64, #"--view: the table has no view "Nope""#)
        XCTAssertEqual(creates, 0)
    }

    // MARK: - doctor

    func testDoctorNamesAbsentFieldsAndSuggestsAMappingOfAFittingType() throws {
        try startCustomised()
        let bare = try configuredTracker()
        let doctor = try bare.run(["doctor"])
        XCTAssertEqual(doctor.status, 0, doctor.stdout)
        XCTAssertTrue(
            doctor.stdout.contains(
                #"fields: the base has no category (no "Category"), complete (no "Complete"), kickoff (no "Kickoff date")"#
            ), doctor.stdout)
        XCTAssertTrue(
            doctor.stdout.contains(
                #"if a field was renamed, map it: "fields": {"category": "Type", "complete": {"field": "Status", "done": "Done"}}"#
            ), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains(#"views for list --view: "All projects", "Active""#), doctor.stdout)
        let json = try bare.run(["doctor", "--json"])
        XCTAssertEqual(json.status, 0)
        XCTAssertTrue(json.stdout.contains(#"\"category\": \"Type\""#), json.stdout)

        let mapped = try customised()
        let fine = try mapped.run(["doctor"])
        XCTAssertTrue(fine.stdout.contains(#"the base has no kickoff (no "Kickoff date")"#), fine.stdout)
        XCTAssertTrue(fine.stdout.contains(#"complete when "Status" is "Done""#), fine.stdout)
    }

    private func permissions(_ path: String) throws -> Int {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}

/// Numbers as tracker shows them: a comma every three digits, no decimals for whole numbers.
enum FieldText {
    static func grouped(_ number: Double) -> String {
        let whole = Int(number.rounded())
        let digits = String(abs(whole))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (whole < 0 ? "-" : "") + text
    }
}

/// A directory for one test, removed when it goes.
final class TemporaryPath {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tracker-xdg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
