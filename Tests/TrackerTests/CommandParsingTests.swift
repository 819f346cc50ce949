import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct CommandParsingTests {
    static let due = CalendarDate("2026-12-01")!
    /// A Saturday.
    static let today = CalendarDate("2026-11-21")!

    func parse(_ arguments: [String]) -> Result<Invocation, AppError> { Invocation.parse(arguments, today: Self.today) }

    @Test(arguments: [
        ([], Invocation(command: Help(topic: nil))),
        (["calendar"], Invocation(command: CalendarFeed())),
        (
            ["calendar", "--all", "--out", "team.ics", "--category", "Brand identity", "--view", " Active "],
            Invocation(
                command: CalendarFeed(
                    filters: ProjectFilters(category: "Brand identity"), view: "Active", includesComplete: true,
                    out: "team.ics"))
        ),
        (
            ["calendar", "--due-within", "30", "--lead", "ana@example.com"],
            Invocation(command: CalendarFeed(filters: ProjectFilters(dueWithinDays: 30, lead: "ana@example.com")))
        ),
        (["report"], Invocation(command: Report())),
        (
            [
                "report", "--days", "14", "--by", "lead", "--format", "email", "--to", "lead@example.com", "--to",
                "Zoë <z@example.com>", "--from", "tracker@example.com", "--category", "Brand identity", "--always",
            ],
            Invocation(
                command: Report(
                    filters: ProjectFilters(category: "Brand identity"), days: 14, grouping: .lead, format: .email,
                    recipients: ["lead@example.com", "=?UTF-8?B?Wm/Dqw==?= <z@example.com>"],
                    sender: "tracker@example.com", always: true))
        ),
        (["report", "--json"], Invocation(command: Report(format: .json))),
        (
            ["list", "--mine", "--team", "Sam Epps", "--lead", "me"],
            Invocation(command: List(filters: ProjectFilters(lead: "me", team: "Sam Epps", mine: true)))
        ),
        (["--help"], Invocation(command: Help(topic: nil))),
        (["--version"], Invocation(command: Version())),
        (["help", "add"], Invocation(command: Help(topic: "add"))),
        (["add", "--help"], Invocation(command: Help(topic: "add"))),
        (["list", "-h"], Invocation(command: Help(topic: "list"))),
        (["list"], Invocation(command: List())),
        (["list", "--json"], Invocation(command: List(format: .json))),
        (["list", "--format", "csv"], Invocation(command: List(format: .csv))),
        (["list", "--format=ndjson"], Invocation(command: List(format: .ndjson))),
        (
            ["--secrets", "/tmp/s.json", "list", "--verbose", "--timeout", "5", "--color", "never"],
            Invocation(
                command: List(),
                globals: GlobalOptions(secretsPath: "/tmp/s.json", timeoutSeconds: 5, isVerbose: true, color: .never))
        ),
        (["show", "rec3g0Xxmw2rw3scs"], Invocation(command: Show(target: "rec3g0Xxmw2rw3scs"))),
        (
            ["show", "--json", "CMCA brand identity"],
            Invocation(command: Show(target: "CMCA brand identity", json: true))
        ),
        (["show", "--", "--odd name"], Invocation(command: Show(target: "--odd name"))),
        (
            ["add", "--name", "X", "--due", "2026-12-01"],
            Invocation(command: Add(input: ProjectInput(name: "X", due: due)))
        ),
        (
            [
                "add", "--name=Logo", "--due", "2026-12-01", "--kickoff", "2026-11-02", "--category", "Brand identity",
                "--lead", "ana@example.com", "--team", "b@example.com", "--team", "c@example.com", "--client", "Acme",
                "--client", "recAAAAAAAAAAAAAA", "--notes", "hi", "--complete", "--if-absent", "-q",
            ],
            Invocation(
                command: Add(
                    input: ProjectInput(
                        name: "Logo", due: due, kickoff: CalendarDate("2026-11-02"), category: "Brand identity",
                        lead: "ana@example.com", team: ["b@example.com", "c@example.com"],
                        clients: ["Acme", "recAAAAAAAAAAAAAA"], notes: .text("hi"), complete: true),
                    ifAbsent: true, mode: WriteMode(quiet: true)))
        ),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--notes-file", "-", "--dry-run", "--json"],
            Invocation(
                command: Add(
                    input: ProjectInput(name: "X", due: due, notes: .standardInput),
                    mode: WriteMode(dryRun: true, json: true)))
        ),
        (
            ["add", "--name", "X", "--due", "friday", "--lead", "Gal Samari", "--team", "Sam Epps"],
            Invocation(
                command: Add(
                    input: ProjectInput(
                        name: "X", due: CalendarDate("2026-11-27"), lead: "Gal Samari", team: ["Sam Epps"])))
        ),
        (
            [
                "update", "Spring campaign", "--due", "+2w", "--incomplete", "--clear", "kickoff,notes", "--clear",
                "lead",
            ],
            Invocation(
                command: Update(
                    target: "Spring campaign",
                    input: ProjectInput(
                        due: CalendarDate("2026-12-05"), complete: false, cleared: [.kickoff, .notes, .lead])))
        ),
        // The base's own fields: --set FIELD=VALUE (split at the first =), --clear by name, and --add without --due
        // (a base may have no due date; whether it needs one is known once the base is read).
        (
            [
                "update", "A", "--set", "Budget=1,200", "--set", "Note= a=b ", "--clear", "Tags,kickoff",
                "--clear", "Owner email",
            ],
            Invocation(
                command: Update(
                    target: "A",
                    input: ProjectInput(
                        cleared: [.kickoff], clearedFields: ["Tags", "Owner email"],
                        assignments: [
                            FieldAssignment(field: "Budget", value: "1,200"),
                            FieldAssignment(field: "Note", value: " a=b "),
                        ])))
        ),
        (["add", "--name", "X"], Invocation(command: Add(input: ProjectInput(name: "X")))),
        (
            ["edit", "Logo refresh", "--json"],
            Invocation(command: Edit(target: .project("Logo refresh"), mode: WriteMode(json: true)))
        ),
        (
            ["list", "--view", "Active", "--sort", "Budget", "--desc", "--columns", "name,Budget,LEAD-NAME"],
            Invocation(
                command: List(
                    sort: .field("Budget"), descending: true, columns: [.name, .field("Budget"), .leadName],
                    view: "Active"))
        ),
        (
            ["update", "rec3g0Xxmw2rw3scs", "--team", "a@example.com", "--client", "Acme", "--dry-run"],
            Invocation(
                command: Update(
                    target: "rec3g0Xxmw2rw3scs", input: ProjectInput(team: ["a@example.com"], clients: ["Acme"]),
                    mode: WriteMode(dryRun: true)))
        ),
        (
            ["done", "A", "rec3g0Xxmw2rw3scs", "-q"],
            Invocation(
                command: Done(targets: ["A", "rec3g0Xxmw2rw3scs"], mode: WriteMode(quiet: true)))
        ),
        (
            ["reopen", "A", "--json"],
            Invocation(command: Reopen(targets: ["A"], mode: WriteMode(json: true)))
        ),
        (
            ["delete", "A", "B", "--yes"],
            Invocation(command: Delete(targets: ["A", "B"], confirmed: true))
        ),
        (["delete", "-y", "A"], Invocation(command: Delete(targets: ["A"], confirmed: true))),
        (
            ["list", "--due-before", "tomorrow"],
            Invocation(command: List(filters: ProjectFilters(dueBefore: CalendarDate("2026-11-22"))))
        ),
        // A flag given twice: the last one wins, so an alias can be overridden.
        (["list", "--limit", "20", "--limit", "5"], Invocation(command: List(limit: 5))),
        // The last of a flag given twice wins, whatever the flag.
        (["list", "--format", "json", "--format", "csv"], Invocation(command: List(format: .csv))),
        (
            ["add", "--name", "A", "--due", "2026-11-30", "--name", "B", "--due", "2026-12-01"],
            Invocation(command: Add(input: ProjectInput(name: "B", due: due)))
        ),
        (
            ["add", "--name", "X", "--name", "Y", "--due", "2026-12-01"],
            Invocation(command: Add(input: ProjectInput(name: "Y", due: due)))
        ),
        // A command's flag before the command.
        (["--limit", "1", "list"], Invocation(command: List(limit: 1))),
        // Choices ignore case.
        (
            ["list", "--sort", "Due", "--format", "JSON"],
            Invocation(command: List(format: .json, sort: .word(.due)))
        ),
        (
            ["list", "--color", "NEVER"],
            Invocation(command: List(), globals: GlobalOptions(color: .never))
        ),
        // Help wins over any other problem on the line.
        (["add", "-h", "--name"], Invocation(command: Help(topic: "add"))),
        (["add", "--due", "someday", "--help"], Invocation(command: Help(topic: "add"))),
        (["help", "--man"], Invocation(command: Help(isManual: true))),
        (["import"], Invocation(command: Import())),
        (
            ["import", "rows.csv", "--format", "CSV", "--key", "name,due", "--dry-run"],
            Invocation(
                command: Import(file: "rows.csv", format: .csv, key: [.name, .due], mode: WriteMode(dryRun: true)))
        ),
        (
            ["attach", "Coffee", "a.png", "b.pdf"],
            Invocation(command: Attach(owner: .project("Coffee"), files: ["a.png", "b.pdf"]))
        ),
        (
            ["attach", "--client", "Acme", "logo.svg", "--field", "Logo", "-q"],
            Invocation(
                command: Attach(
                    owner: .client("Acme"), files: ["logo.svg"], field: "Logo", mode: WriteMode(quiet: true)))
        ),
        (["files", "Coffee"], Invocation(command: Files(owner: .project("Coffee"), action: .list(nil)))),
        (
            ["files", "Coffee", "--download"],
            Invocation(command: Files(owner: .project("Coffee"), action: .download(directory: ".", force: false)))
        ),
        (
            ["files", "Coffee", "--download", "out", "--force"],
            Invocation(command: Files(owner: .project("Coffee"), action: .download(directory: "out", force: true)))
        ),
        (
            ["files", "Coffee", "--remove", "a.png", "attX", "--yes"],
            Invocation(
                command: Files(
                    owner: .project("Coffee"), action: .remove(["a.png", "attX"], confirmed: true, dryRun: false)))
        ),
        (
            ["files", "--client", "Acme", "--json"],
            Invocation(command: Files(owner: .client("Acme"), action: .list(.json)))
        ),
        (["clients", "--format", "ndjson"], Invocation(command: Clients(format: .ndjson))),
        (["init"], Invocation(command: Init())),
        (
            ["init", "--base", "appABCDEFGHIJKLMN", "--table", "T", "--path", "s.json", "--force"],
            Invocation(
                command: Init(base: "appABCDEFGHIJKLMN", table: "T", path: "s.json", force: true))
        ),
    ])
    func parsesValidCommandLines(arguments: [String], expected: Invocation) {
        #expect(parse(arguments) == .success(expected))
    }

    @Test(arguments: [
        (["lst"], "unknown command 'lst'. Did you mean 'list'?"),
        (["list", "--jsn"], "unknown flag '--jsn' for 'tracker list'. Did you mean '--json'?"),
        (["list", "--format", "xml"], "--format must be one of table, tsv, csv, json, ndjson, not 'xml'"),
        (["list", "--json", "--format", "csv"], "--json and --format csv cannot be used together"),
        (["list", "extra"], "unexpected argument 'extra'; quote values that contain spaces"),
        (["calendar", "--all", "--incomplete"], "--all and --incomplete cannot be used together"),
        (["calendar", "--out", " "], "--out must not be empty"),
        (["calendar", "--sort", "due"], "--sort is not a flag of 'tracker calendar'; it belongs to 'tracker list'"),
        (["add", "--due", "2026-12-01"], "add needs --name NAME"),
        (["add", "--name", "X", "--set", "Budget"], "--set needs FIELD=VALUE, e.g. --set Budget=1200, not 'Budget'"),
        (["add", "--name", "X", "--set", "=5"], "--set '=5' names no field"),
        (
            ["list", "--columns", "name,,due"],
            "--columns has an empty name; it takes id name due status category lead-name lead-email kickoff team clients notes complete createdTime tasks days-left or the base's field names"
        ),
        (["add", "--name", "  ", "--due", "2026-12-01"], "--name must not be empty"),
        (["add", "--name", "X", "--due", "2026-02-30"], "--due '2026-02-30' is not a real date"),
        (
            ["add", "--name", "X", "--due", "12/01/2026"],
            "--due '12/01/2026' is not a date; use YYYY-MM-DD, today, tomorrow, yesterday, a weekday like friday, or +3d, +2w, -1d"
        ),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--kickoff", "2025-13-01"],
            "--kickoff '2025-13-01' is not a real date"
        ),
        (
            ["list", "--due-before", "soon"],
            "--due-before 'soon' is not a date; use YYYY-MM-DD, today, tomorrow, yesterday, a weekday like friday, or +3d, +2w, -1d"
        ),
        (["add", "--name", "X", "--due"], "--due needs a value (DATE)"),
        (
            ["add", "--name", "Bad\u{1B}[2J", "--due", "2026-12-01"],
            "--name holds a control character (^[); control characters are not allowed"
        ),
        (
            ["add", "--name", "Tab\there", "--due", "2026-12-01"],
            "--name holds a control character (^I); control characters are not allowed"
        ),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--notes", "ok\nfine\u{7}"],
            "--notes holds a control character (^G); only newlines and tabs are allowed"
        ),
        (["update", "A"], "update needs something to change, e.g. --due friday or --clear notes"),
        (["update", "--due", "friday"], "update needs a project id or name"),
        (["update", "A", "--clear", "name"], "--clear cannot empty name: every project needs one"),
        (["update", "A", "--due", "friday", "--clear", "due"], "--due and --clear due cannot be used together"),
        (["update", "A", "--notes", "x", "--clear", "notes"], "--notes and --clear notes cannot be used together"),
        (["update", "A", "--complete", "--incomplete"], "--complete and --incomplete cannot be used together"),
        (["done"], "done needs one or more project ids or names"),
        (["delete", "A", "--json", "-q"], "--json and --quiet cannot be used together"),
        (["edit"], "edit needs a project id or name"),
        (["edit", "A", "B"], "unexpected argument 'B'; quote values that contain spaces"),
        (
            ["edit", "A", "--due", "friday"],
            "--due is not a flag of 'tracker edit'; it belongs to 'tracker add', 'tracker update'"
        ),
        (
            ["reopen", "A", "--yes"],
            "--yes is not a flag of 'tracker reopen'; it belongs to 'tracker delete', 'tracker task', 'tracker files', 'tracker undo', 'tracker approve'"
        ),
        (
            ["--limit", "5"],
            "--limit belongs to 'tracker list', 'tracker comments', 'tracker tasks', 'tracker history'; put the command first: tracker list --limit …"
        ),
        (
            ["--limit", "5", "add"],
            "--limit is not a flag of 'tracker add'; it belongs to 'tracker list', 'tracker comments', 'tracker tasks', 'tracker history'"
        ),
        (["list", "--limit", "0"], "--limit must be a whole number from 1 to 1,000,000, not '0'"),
        (["import", "--key", "notes"], "--key takes up to three of name, due, category, not 'notes'"),
        (["init", "extra"], "unexpected argument 'extra'; quote values that contain spaces"),
        (["add", "--name", "--due", "2026-12-01"], "--name needs a value (NAME)"),
        (
            ["add", "--name", "Kitchen", "renovation", "--due", "2026-12-01"],
            "unexpected argument 'renovation'; quote values that contain spaces"
        ),
        (["add", "--name", "X", "--due", "2026-12-01", "--lead", "ana@"], "--lead 'ana@' is not an email address"),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--team", "a b@c.d"],
            "--team 'a b@c.d' is not an email address"
        ),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--notes", "a", "--notes-file", "f"],
            "--notes and --notes-file cannot be used together"
        ),
        (["add", "--name", "X", "--due", "2026-12-01", "--json", "-q"], "--json and --quiet cannot be used together"),
        (["add", "--name", "X", "--due", "2026-12-01", "--complete=yes"], "--complete does not take a value"),
        (["show"], "show needs a project id or name"),
        (["show", "a", "b"], "unexpected argument 'b'; quote values that contain spaces"),
        (["list", "--timeout", "0"], "--timeout must be a whole number of seconds from 1 to 3600, not '0'"),
        (["list", "--color", "sometimes"], "--color must be one of auto, always, never, not 'sometimes'"),
        (["help", "lisst"], "no help for unknown command 'lisst'. Did you mean 'list'?"),
        (["report", "--format", "email"], "--format email needs --to ADDRESS, the recipient"),
        (["report", "--to", "a@example.com"], "--to is for --format email"),
        (["report", "--days", "0"], "--days must be a whole number from 1 to 1,000,000, not '0'"),
        (["report", "--days", "400"], "--days must be a whole number from 1 to 366, not '400'"),
        (["report", "--by", "client"], "--by must be one of none, lead, category, not 'client'"),
        (["attach", "Coffee"], "attach needs one or more files after the project: tracker attach PROJECT FILE..."),
        (["files", "Coffee", "out"], "files takes one project; to save its files, add --download DIR"),
        (["files", "Coffee", "--force"], "--force goes with --download"),
        (["files", "Coffee", "--remove"], "--remove needs the filenames or ids to remove, after the project"),
        (["files", "Coffee", "--download", "a", "b"], "--download takes one directory, after the project"),
        (
            ["files", "Coffee", "--download", "--json"],
            "--format and --json go with the listing, not --download or --remove"
        ),
        (["clients", "extra"], "unexpected argument 'extra'; quote values that contain spaces"),
        (
            ["report", "--format", "email", "--to", "lead@example.com\nBcc: all@example.com"],
            "'lead@example.com Bcc: all@example.com' is not one mail address (like lead@example.com or "
                + "\"Lead Name <lead@example.com>\")"
        ),
        (
            ["report", "--format", "email", "--to", "a@example.com, b@example.com"],
            "'a@example.com, b@example.com' is not one mail address (like lead@example.com or "
                + "\"Lead Name <lead@example.com>\")"
        ),
    ])
    func rejectsBadCommandLinesWithAUsageError(arguments: [String], message: String) throws {
        let error = try #require(parse(arguments).failure)
        #expect(error.message == message)
        #expect(error.exitCode == .usage)
        #expect(error.hint?.hasPrefix("Run 'tracker help") == true)
    }

    /// docs/contract.md "Naming a project": the id, else the exact name, else the names equal ignoring case.
    @Test func anExactNameWinsOverOnesEqualIgnoringCase() {
        let records = [("recA", "Twin"), ("recB", "twin"), ("recC", "TWIN"), ("recD", "Other")]
        func match(_ target: String) -> [String] {
            ProjectNaming.matches(of: target, in: records, id: \.0, name: \.1).map(\.0)
        }
        #expect(match("twin") == ["recB"])
        #expect(match("Twin") == ["recA"])
        #expect(match("tWiN") == ["recA", "recB", "recC"], "no exact match: every one equal ignoring case")
        #expect(match("recD") == ["recD"])
        #expect(match("Tw") == [])
    }

    @Test func recordIDsAreToldFromNames() {
        #expect(ProjectAPIClient.looksLikeRecordID("rec3g0Xxmw2rw3scs"))
        #expect(
            ProjectAPIClient.looksLikeRecordID("recordkeeping2024"), "a name with an id's shape; the name still wins")
        #expect(!ProjectAPIClient.looksLikeRecordID("rec3g0Xxmw2rw3sc"))
        #expect(!ProjectAPIClient.looksLikeRecordID("rec3g0Xxmw2rw3s/."))
        #expect(!ProjectAPIClient.looksLikeRecordID("CMCA brand identity"))
    }

    /// Today is Saturday 2026-11-21.
    @Test(arguments: [
        ("2026-12-01", "2026-12-01"), ("2026-1-5", "2026-01-05"), ("2026-01-5", "2026-01-05"), ("today", "2026-11-21"),
        ("Tomorrow", "2026-11-22"), ("yesterday", "2026-11-20"), ("friday", "2026-11-27"), ("FRI", "2026-11-27"),
        ("saturday", "2026-11-28"), ("sunday", "2026-11-22"), ("monday", "2026-11-23"), ("+3d", "2026-11-24"),
        ("+2w", "2026-12-05"), ("-1d", "2026-11-20"), ("+0d", "2026-11-21"), ("2028-02-29", "2028-02-29"),
    ])
    func everyDateFormReadsAsTheSpecSays(typed: String, date: String) {
        #expect(DateInput.read(typed, today: Self.today) == .date(CalendarDate(date)!))
        #expect(
            parse(["add", "--name", "X", "--due", typed]).map { invocation -> String? in
                guard let options = invocation.command as? Add else { return nil }
                return options.input.due?.description
            } == .success(date))
    }

    @Test(arguments: ["2026-02-30", "2027-02-29", "2026-13-01", "2026-00-10"])
    func impossibleDatesAreTold(typed: String) {
        #expect(DateInput.read(typed, today: Self.today) == .impossible)
    }

    @Test(arguments: ["someday", "12/01/2026", "26-12-01", "+3", "3d", "+d", "+1y", "2026-12-001", "fridays", ""])
    func otherTextIsNotADate(typed: String) {
        #expect(DateInput.read(typed, today: Self.today) == .unrecognized)
    }

    @Test(arguments: [nil] + CommandRegistry.specs.map(\.name))
    func everyHelpPageFits80Columns(topic: String?) {
        for line in HelpPage.page(for: topic).split(separator: "\n") {
            // These pages hold only characters one column wide, so counting characters measures them.
            #expect(line.count <= 80, "help \(topic ?? "") has a line of \(line.count): \(line)")
        }
    }

    @Test func theCommandsListIsAligned() {
        let page = HelpPage.page(for: nil)
        let section = page.components(separatedBy: "COMMANDS\n")[1].components(separatedBy: "\n\n")[0]
        let lines = section.split(separator: "\n")
        #expect(lines.count >= CommandRegistry.specs.count)
        let starts = lines.map { line in
            line.dropFirst(2).drop(while: { $0 != " " }).prefix(while: { $0 == " " }).count + line.prefix(2).count
                + line.dropFirst(2).prefix(while: { $0 != " " }).count
        }
        #expect(Set(starts).count == 1, "\(section)")
        #expect(lines.contains { $0.hasPrefix("  completion  ") })
    }

    @Test func theManualIsRoffMadeFromTheSameSpecs() {
        let manual = ManualPage.page
        #expect(manual.hasPrefix(".TH TRACKER 1 "))
        for spec in CommandRegistry.specs { #expect(manual.contains(".SS \(spec.name)\n")) }
        #expect(manual.contains("\\fB\\-\\-if\\-absent\\fR"))
        #expect(
            !manual.split(separator: "\n").contains {
                $0.hasPrefix(".") && $0.count > 1 && !$0.hasPrefix(".TH") && !$0.hasPrefix(".S") && !$0.hasPrefix(".TP")
                    && !$0.hasPrefix(".PP") && !$0.hasPrefix(".nf") && !$0.hasPrefix(".fi") && !$0.hasPrefix(".B")
                    && !$0.hasPrefix(".I") && !$0.hasPrefix(".T")
            })
    }

    @Test func versionNamesTheSwiftThatBuiltItAndThePlatform() {
        #expect(Version.line.hasPrefix("tracker \(Version.current) (built from a checkout, Swift 6."))
        #expect(Version.line.hasSuffix(", Linux x86_64)") || Version.line.hasSuffix(", Linux arm64)"))
    }

    @Test func helpForACommandMatchesItsFlagHelp() {
        for spec in CommandRegistry.specs where spec.name != "help" {
            let page = HelpPage.page(for: spec.name)
            for section in ["USAGE", "FLAGS", "EXAMPLES"] {
                #expect(page.contains("\n\(section)\n"), "\(spec.name) lacks \(section)")
            }
            for flag in spec.flags { #expect(page.contains(flag.name)) }
        }
    }
}
