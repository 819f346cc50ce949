import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// `CLI.run` end to end inside the process: stub network, recorded streams, fixed clock.
@Suite(.timeLimit(.minutes(2)))
struct CLITests {
    struct Run {
        var code: ExitCode
        var stdout: String
        var stderr: String
        var host: StubTransport.Host

        /// The requests to the projects' routes: those after reading the schema.
        var requests: [HTTPRequest] { host.requests.filter { !$0.url.path.hasPrefix("/v0/meta/") } }
    }

    /// Runs tracker in the process; a command that reads the base first reads its schema, answered with the
    /// template's unless `schema` says otherwise (nil: nothing is answered for it).
    func run(
        _ arguments: [String], _ answers: [StubAnswer] = [], terminal: Bool = false, stdin: String = "",
        typed: [String] = [], secret: String? = nil, directory: String = "/nonexistent",
        schema: StubAnswer? = .http(200, body: Fixture.templateSchema)
    ) async -> Run {
        let lines = Locked(typed)
        let host = StubTransport.host(answers, meta: schema.map { [$0] } ?? [])
        let out = Recorder(), err = Recorder()
        let clock = TestClock()
        var context = Context(
            environment: [
                "AIRTABLE_TOKEN": Fixture.token, "AIRTABLE_BASE_ID": "appTESTbase000001",
                "AIRTABLE_TABLE": "Design projects",
                "AIRTABLE_ENDPOINT_URL": "https://\(host.name)", "HOME": "/nonexistent",
            ],
            output: Output(
                standardOutput: out.append, standardError: err.append, isStdoutTerminal: terminal,
                isStderrTerminal: terminal,
                terminalWidth: 100),
            currentDirectory: "/nonexistent", now: { Date(timeIntervalSince1970: 1_795_000_000) },
            timeZone: Zone(identifier: "UTC")!,
            makeTransport: { _ in StubTransport() },
            makePacer: { _, _ in UnlimitedPacer() },
            network: clock.environment(), readStandardInput: { Data(stdin.utf8) }, isStdinTerminal: terminal,
            readLine: { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        // Each request is scripted here: the journal's reads are tested on their own (JournalOperationTests).
        context.journals = false
        context.readSecret = { prompt in
            err.append(prompt)
            return secret
        }
        let code = await CLI.run(arguments: arguments, context: context)
        return Run(code: code, stdout: out.text, stderr: err.text, host: host)
    }

    @Test func listPipedIsTSVAndSilentOnStderr() async {
        let result = await run(
            ["list"],
            [
                .http(200, body: Fixture.page(["a", "b"], offset: "o1")),
                .http(200, body: Fixture.page(["c"], first: 2)),
            ])
        #expect(result.code == .success)
        #expect(
            result.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false)[1] }
                == ["a", "b", "c"])
        #expect(result.stderr.isEmpty)
    }

    @Test func listOnATerminalIsATableWithACountOnStderr() async {
        let result = await run(
            ["list", "--color", "never"], [.http(200, body: Fixture.page(["a", "b"]))], terminal: true)
        #expect(result.stdout.hasPrefix("ID                 NAME"))
        #expect(result.stderr == "2 projects: 2 open\n")
    }

    @Test func addPrintsTheNewIDAndNothingElse() async {
        let result = await run(
            ["add", "--name", "X", "--due", "2026-12-01"],
            [.http(200, body: Fixture.record(id: "recNEWNEWNEWNEW01", name: "X"))])
        #expect(result.code == .success)
        #expect(result.stdout == "recNEWNEWNEWNEW01\n")
        #expect(result.stderr.isEmpty)
        #expect(
            await run(
                ["add", "-q", "--name", "X", "--due", "2026-12-01"],
                [.http(200, body: Fixture.record(id: "recNEWNEWNEWNEW01", name: "X"))]
            ).stdout.isEmpty)
    }

    @Test func addDryRunPrintsTheBodyAndSendsNothing() async {
        let result = await run(
            ["add", "--name", "X", "--due", "2026-12-01", "--notes-file", "-", "--dry-run"], stdin: "from stdin\n")
        #expect(
            result.stdout == #"{"fields":{"Name":"X","Due date":"2026-12-01","Notes":"from stdin"}}"#
                + "\n")
        #expect(result.requests.isEmpty)
    }

    @Test func addIfAbsentReusesAnExistingProject() async {
        let result = await run(
            ["add", "--if-absent", "--name", "a", "--due", "2026-12-01"], [.http(200, body: Fixture.page(["a"]))])
        #expect(result.stdout == "rec00000000000000\n")
        #expect(result.requests.map(\.method) == ["GET"])
    }

    /// "Only if no project has exactly this name": a project whose name differs in case is another project, even
    /// when Airtable's answer includes it.
    @Test func addIfAbsentCreatesWhenOnlyTheCaseDiffers() async {
        let result = await run(
            ["add", "--if-absent", "--name", "Weekly review", "--due", "2026-12-01"],
            [
                .http(200, body: #"{"records":[\#(Fixture.record(id: "recLOWERlower0000", name: "weekly review"))]}"#),
                .http(200, body: #"{"records":[\#(Fixture.record(id: "recLOWERlower0000", name: "weekly review"))]}"#),
                .http(200, body: Fixture.record(id: "recNEWnew00000000", name: "Weekly review")),
            ])
        #expect(result.stdout == "recNEWnew00000000\n")
        // Looked for first, without the lock; then again under it, and created.
        #expect(result.requests.map(\.method) == ["GET", "GET", "POST"])
    }

    /// `done X` racing a cron `add X`: the project appears between the lookup and the search for close names. The
    /// name it would suggest is the one typed, so tracker looks again and finds it.
    @Test func aNameThatAppearsWhileLookingIsFoundNotSuggested() async {
        let project = Fixture.record(id: "recRACEDraced0000", name: "Weekly review")
        let result = await run(
            ["done", "Weekly review"],
            [
                .http(200, body: #"{"records":[]}"#),
                .http(200, body: #"{"records":[\#(project)]}"#),
                .http(200, body: #"{"records":[\#(project)]}"#),
                .http(200, body: #"{"records":[\#(project)]}"#),
            ])
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stdout == "recRACEDraced0000\n")
        #expect(result.requests.map(\.method) == ["GET", "GET", "GET", "PATCH"])
    }

    @Test func aNameStillMissingIsNeverItsOwnSuggestion() async {
        let result = await run(
            ["done", "Weekly review"],
            [
                .http(200, body: #"{"records":[]}"#),
                .http(200, body: #"{"records":[\#(Fixture.record(id: "recRACEDraced0000", name: "Weekly review"))]}"#),
                .http(200, body: #"{"records":[]}"#),
            ])
        #expect(result.code == .notFound)
        #expect(!result.stderr.contains("Did you mean"), "\(result.stderr)")
        #expect(result.requests.count == 3)
    }

    @Test func showByNameListsAmbiguousMatches() async {
        let both =
            #"{"records":[\#(Fixture.record(id: "recAAAAAAAAAAAAAA", name: "Twin")),\#(Fixture.record(id: "recBBBBBBBBBBBBBB", name: "Twin", due: "2027-01-01"))]}"#
        let result = await run(["show", "Twin"], [.http(200, body: both)])
        #expect(result.code == .usage)
        #expect(
            result.stderr
                == "tracker: 2 projects are named \"Twin\": recAAAAAAAAAAAAAA (due 2026-12-01), recBBBBBBBBBBBBBB (due 2027-01-01)\nPass one of the ids instead.\n"
        )
    }

    @Test(arguments: [
        (
            401, #"{"error":{"type":"AUTHENTICATION_REQUIRED","message":"Authentication required"}}"#,
            ExitCode.permissionDenied
        ),
        (403, #"{"error":{"type":"INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"}}"#, .permissionDenied),
        (404, #"{"error":{"type":"MODEL_ID_NOT_FOUND","message":"Record not found"}}"#, .notFound),
        (422, #"{"error":{"type":"INVALID_VALUE_FOR_COLUMN","message":"bad"}}"#, .dataRejected),
    ])
    func failuresAreOneLineAHintAndTheSpecsCode(status: Int, body: String, code: ExitCode) async {
        let result = await run(["show", "recAAAAAAAAAAAAAA"], [.http(status, body: body)])
        #expect(result.code == code)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("tracker: ") == true)
        #expect(lines.count <= 2)
        #expect(!result.stderr.contains(Fixture.token))
    }

    @Test func helpAndCommandHelpShowTheCommandsOwnPage() async {
        let viaHelp = await run(["help", "add"])
        let viaFlag = await run(["add", "--help"])
        #expect(viaHelp.code == .success)
        #expect(viaHelp.stdout.hasPrefix("Create a project and print its id.\n\nUSAGE\n  tracker add --name NAME "))
        for expected in [
            "\nFLAGS\n", "  --if-absent ", "  -q, --quiet ", "\nGLOBAL FLAGS\n", "  --secrets PATH ", "\nEXAMPLES\n",
        ] {
            #expect(viaHelp.stdout.contains(expected), "help add lacks \(expected)")
        }
        #expect(!viaHelp.stdout.contains("--overdue"), "list's flags are not on add's page")
        #expect(viaFlag.stdout == viaHelp.stdout)
        #expect(viaHelp.host.requests.isEmpty)
    }

    @Test func verboseLogsRequestsWithoutTheToken() async {
        let result = await run(["--verbose", "list"], [.http(200, body: Fixture.page(["a"]))])
        // Nothing remembered: the schema read and the listing go out together, in either order.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.contains { $0.hasPrefix("tracker: GET /v0/meta/bases/appTESTbase000001/tables 200 ") })
        #expect(
            lines.contains { $0.hasPrefix("tracker: GET /v0/appTESTbase000001/Design%20projects?pageSize=100 200 ") })
        #expect(!result.stderr.contains(Fixture.token))
    }

    @Test func deleteOnATerminalShowsWhatItDeletesAndAsks() async throws {
        let page = #"{"records":[\#(Fixture.record(id: "recAAAAAAAAAAAAAA", name: "Old draft"))]}"#
        let deleted = #"{"records":[{"id":"recAAAAAAAAAAAAAA","deleted":true}]}"#
        let yes = await run(
            ["delete", "Old draft"], [.http(200, body: page), .http(200, body: deleted)], terminal: true, typed: ["y"])
        #expect(yes.code == .success)
        #expect(yes.stdout == "recAAAAAAAAAAAAAA\n")
        #expect(
            yes.stderr.hasPrefix(
                "This deletes 1 project:\n  recAAAAAAAAAAAAAA  Old draft, due 2026-12-01\nDelete it? [y/N] "))
        #expect(yes.requests.map(\.method) == ["GET", "DELETE"])

        let no = await run(["delete", "Old draft"], [.http(200, body: page)], terminal: true, typed: [""])
        #expect(no.code == .failure)
        #expect(no.stdout.isEmpty)
        #expect(no.stderr.hasSuffix("[y/N] tracker: nothing was deleted\n"))
        #expect(no.requests.map(\.method) == ["GET"])
    }

    /// A write never acts on a guess unasked: on a terminal the one project holding every word typed is offered, and
    /// only a yes writes (docs/contract.md "Naming a project").
    @Test(arguments: [("y", true), ("n", false), ("", false)])
    func aWriteOnATerminalAsksAboutTheOneProjectHoldingEveryWord(answer: String, writes: Bool) async throws {
        let coffee = #"{"records":[\#(Fixture.record(id: "recCOFFEE00000001", name: "Coffee packaging"))]}"#
        let result = await run(
            ["done", "coffee"],
            [.http(200, body: #"{"records":[]}"#), .http(200, body: coffee), .http(200, body: coffee)],
            terminal: true, typed: [answer])
        #expect(result.stderr.contains(#"Did you mean "Coffee packaging"? [y/N] "#), "\(result.stderr)")
        #expect(result.requests.contains { $0.method == "PATCH" } == writes)
        #expect(result.code == (writes ? .success : .notFound), "\(result.stderr)")
        if writes { #expect(result.stdout == "recCOFFEE00000001\n") }
    }

    @Test func deleteOffATerminalNeedsYesAndDeletesNothingWithout() async throws {
        let page = #"{"records":[\#(Fixture.record(id: "recAAAAAAAAAAAAAA", name: "Old draft"))]}"#
        let result = await run(["delete", "Old draft"], [.http(200, body: page)])
        #expect(result.code == .usage)
        #expect(
            result.stderr.hasPrefix("tracker: delete asks before deleting, and stdin is not a terminal; pass --yes"))
        #expect(result.requests.map(\.method) == ["GET"])
    }

    @Test func initOnATerminalAsksWithoutEchoChecksThenWrites() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/conf/Secrets.json"
        let result = await run(
            ["init", "--path", path], [.http(200, body: #"{"records":[]}"#)], terminal: true,
            typed: ["appABCDEFGHIJKLMN", ""], secret: Fixture.token,
            schema: .http(403, body: #"{"error":{"type":"INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND"}}"#))
        #expect(result.code == .success, "\(result.stderr)")
        #expect(result.stderr.contains("(With schema.bases:read, tracker would list your bases here.)"))
        // Every scope tracker can use is named, with what it gives.
        for scope in [
            "data.records:read", "data.records:write", "schema.bases:read", "data.recordComments:read",
            "data.recordComments:write", "user.email:read",
        ] {
            #expect(result.stderr.contains("  \(scope) "), "\(scope)")
        }
        #expect(result.stderr.contains("Token (typing is hidden): "))
        #expect(result.stderr.contains("Base id (the app… part of the base's URL): "))
        #expect(result.stderr.contains("Table [Design projects]: "))
        #expect(!result.stderr.contains(Fixture.token), "the token is never shown")
        #expect(result.host.requests.map(\.url.path) == ["/v0/meta/bases", "/v0/appABCDEFGHIJKLMN/Design projects"])
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(saved.contains(#""baseId":"appABCDEFGHIJKLMN""#) && saved.contains(#""table":"Design projects""#))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }

    @Test func initOffersTheTokensBasesAndThenTheTablesTemplateFirst() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/Secrets.json"
        let bases =
            #"{"bases":[{"id":"appAAAAAAAAAAAAAA","name":"Marketing"},{"id":"appBBBBBBBBBBBBBB","name":"Design"}]}"#
        let lines = Locked(["2", ""])
        let host = StubTransport.host(
            [.http(200, body: #"{"records":[]}"#)],
            meta: [.http(200, body: bases), .http(200, body: Fixture.templateSchema)])
        let err = Recorder()
        var context = Context(
            environment: ["HOME": directory.path, "AIRTABLE_ENDPOINT_URL": "https://\(host.name)"],
            output: Output(
                standardOutput: { _ in }, standardError: err.append, isStdoutTerminal: true, isStderrTerminal: true,
                terminalWidth: 100),
            currentDirectory: directory.path, makeTransport: { _ in StubTransport() },
            makePacer: { _, _ in UnlimitedPacer() }, network: TestClock().environment(), isStdinTerminal: true,
            readLine: { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        context.readSecret = { _ in Fixture.token }
        let code = await CLI.run(arguments: ["init", "--path", path], context: context)
        #expect(code == .success, "\(err.text)")
        #expect(err.text.contains("  1) Marketing (appAAAAAAAAAAAAAA)\n  2) Design (appBBBBBBBBBBBBBB)\n"))
        #expect(err.text.contains("  1) Design projects\n"), "the template's table first: \(err.text)")
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(saved.contains(#""baseId":"appBBBBBBBBBBBBBB""#) && saved.contains(#""table":"Design projects""#))
        #expect(host.requests.last?.url.path == "/v0/appBBBBBBBBBBBBBB/Design projects")
        // Where the tasks are, from the schema it read to list the tables (no request of its own); this schema has none.
        #expect(err.text.contains("This base has no Tasks table; the task commands need one.\n"), "\(err.text)")
    }
}

@Suite struct StartUpTests {
    /// libcurl is loaded from the first moment for a command that may send, never for one that cannot, and not for the
    /// board (which loads it once it has drawn).
    @Test(arguments: [
        (["list"], true), (["--profile", "work", "list"], true), (["add", "--name", "x"], true), (["mcp"], true),
        (["board"], false), (["--profile", "work", "board", "--every", "5"], false),
        (["--version"], false), (["help"], false), (["help", "list"], false), (["list", "--help"], false),
        (["completion", "bash"], false), (["__complete", "show"], false), ([], false), (["-h"], false),
    ])
    func theNetworkIsPreparedOnlyForCommandsThatMaySend(arguments: [String], expected: Bool) {
        #expect(CLI.loadsTransportAtStart(arguments) == expected)
    }

    /// The commands that may answer from the team's copy say so on their specs (the contract's eight), and the parser
    /// reads it there: `--max-age` is taken by them and refused by the others.
    @Test func theCommandsThatReadTheTeamsCopySayItOnTheirSpecs() {
        let readers = CommandRegistry.specs.filter { $0.facts.contains(.readsTeamCopy) }.map(\.name).sorted()
        #expect(readers == ["calendar", "clients", "list", "report", "show", "status", "tasks", "timeline"])
        let today = CalendarDate(year: 2026, month: 11, day: 29)!
        let list = Invocation.parse(["list", "--max-age", "60"], today: today)
        #expect((try? list.get())?.globals.maxAge == 60)
        guard case .failure(let error) = Invocation.parse(["add", "--max-age", "5", "--name", "x"], today: today) else {
            Issue.record("add took --max-age")
            return
        }
        #expect(error.message.hasPrefix("--max-age is for the commands that only read: calendar, clients, list"))
    }
}

/// `--max-age` in help names the commands that read the team's copy from their own specs: a command that gains the
/// fact is named without a list written by hand.
struct MaxAgeHelpTests {
    @Test func theHelpNamesEveryCommandThatReadsTheTeamsCopy() {
        let readers = CommandRegistry.specs.filter { $0.facts.contains(.readsTeamCopy) }.map(\.name)
        #expect(readers.count >= 8)
        let line = HelpPage.page(for: "list").split(separator: "\n").first { $0.contains("--max-age") } ?? ""
        let described = CommandSpec.globalFlags(describing: CommandRegistry.specs).first { $0.name == "--max-age" }
        #expect(described?.help.hasPrefix(readers.joined(separator: ", ") + ":") == true)
        #expect(line.contains("--max-age"))
        var another = Add.spec
        another.facts.insert(.readsTeamCopy)
        let widened = CommandSpec.globalFlags(describing: CommandRegistry.specs + [another])
        #expect(widened.first { $0.name == "--max-age" }?.help.contains("add") == true)
    }
}
