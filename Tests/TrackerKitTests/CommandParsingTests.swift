import Testing

@testable import TrackerKit

struct CommandParsingTests {
    static let due = CalendarDate("2026-12-01")!

    @Test(arguments: [
        ([], Invocation(command: .help(topic: nil))),
        (["--help"], Invocation(command: .help(topic: nil))),
        (["--version"], Invocation(command: .version)),
        (["help", "add"], Invocation(command: .help(topic: "add"))),
        (["add", "--help"], Invocation(command: .help(topic: "add"))),
        (["list", "-h"], Invocation(command: .help(topic: "list"))),
        (["list"], Invocation(command: .list(ListOptions()))),
        (["list", "--json"], Invocation(command: .list(ListOptions(format: .json)))),
        (["list", "--format", "csv"], Invocation(command: .list(ListOptions(format: .csv)))),
        (["list", "--format=ndjson"], Invocation(command: .list(ListOptions(format: .ndjson)))),
        (
            ["--secrets", "/tmp/s.json", "list", "--verbose", "--timeout", "5", "--color", "never"],
            Invocation(
                command: .list(ListOptions()),
                globals: GlobalOptions(secretsPath: "/tmp/s.json", timeoutSeconds: 5, isVerbose: true, color: .never))
        ),
        (["show", "rec3g0Xxmw2rw3scs"], Invocation(command: .show(ShowOptions(target: "rec3g0Xxmw2rw3scs")))),
        (
            ["show", "--json", "CMCA brand identity"],
            Invocation(command: .show(ShowOptions(target: "CMCA brand identity", json: true)))
        ),
        (["show", "--", "--odd name"], Invocation(command: .show(ShowOptions(target: "--odd name")))),
        (
            ["add", "--name", "X", "--due", "2026-12-01"],
            Invocation(command: .add(AddOptions(draft: ProjectDraft(name: "X", due: due))))
        ),
        (
            [
                "add", "--name=Logo", "--due", "2026-12-01", "--kickoff", "2026-11-02", "--category", "Brand identity",
                "--lead", "ana@example.com", "--team", "b@example.com", "--team", "c@example.com", "--client", "Acme",
                "--client", "recAAAAAAAAAAAAAA", "--notes", "hi", "--complete", "--if-absent", "-q",
            ],
            Invocation(
                command: .add(
                    AddOptions(
                        draft: ProjectDraft(
                            name: "Logo", due: due, kickoff: CalendarDate("2026-11-02"), category: "Brand identity",
                            leadEmail: "ana@example.com", teamEmails: ["b@example.com", "c@example.com"],
                            clients: ["Acme", "recAAAAAAAAAAAAAA"], isComplete: true),
                        notesSource: .text("hi"), ifAbsent: true, quiet: true)))
        ),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--notes-file", "-", "--dry-run", "--json"],
            Invocation(
                command: .add(
                    AddOptions(
                        draft: ProjectDraft(name: "X", due: due), notesSource: .standardInput, dryRun: true, json: true)
                ))
        ),
    ])
    func parsesValidCommandLines(arguments: [String], expected: Invocation) {
        #expect(Invocation.parse(arguments) == .success(expected))
    }

    @Test(arguments: [
        (["lst"], "unknown command 'lst'. Did you mean 'list'?"),
        (["list", "--jsn"], "unknown flag '--jsn' for 'tracker list'. Did you mean '--json'?"),
        (["list", "--format", "xml"], "--format must be one of table, tsv, csv, json, ndjson, not 'xml'"),
        (["list", "--json", "--format", "csv"], "--json and --format csv cannot be used together"),
        (["list", "extra"], "unexpected argument 'extra'; quote values that contain spaces"),
        (["add", "--due", "2026-12-01"], "add needs --name NAME"),
        (["add", "--name", "X"], "add needs --due YYYY-MM-DD"),
        (["add", "--name", "  ", "--due", "2026-12-01"], "--name must not be empty"),
        (["add", "--name", "X", "--due", "2026-02-30"], "--due '2026-02-30' is not a real date; expected YYYY-MM-DD"),
        (["add", "--name", "X", "--due", "12/01/2026"], "--due '12/01/2026' is not a real date; expected YYYY-MM-DD"),
        (
            ["add", "--name", "X", "--due", "2026-12-01", "--kickoff", "2025-13-01"],
            "--kickoff '2025-13-01' is not a real date; expected YYYY-MM-DD"
        ),
        (["add", "--name", "X", "--due"], "--due needs a value (YYYY-MM-DD)"),
        (["add", "--name", "--due", "2026-12-01"], "--name needs a value (NAME)"),
        (["add", "--name", "X", "--name", "Y", "--due", "2026-12-01"], "--name was given more than once"),
        (
            ["add", "--name", "Kitchen", "renovation", "--due", "2026-12-01"],
            "unexpected argument 'renovation'; quote values that contain spaces"
        ),
        (["add", "--name", "X", "--due", "2026-12-01", "--lead", "ana"], "--lead 'ana' is not an email address"),
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
    ])
    func rejectsBadCommandLinesWithAUsageError(arguments: [String], message: String) throws {
        let error = try #require(Invocation.parse(arguments).failure)
        #expect(error.message == message)
        #expect(error.exitCode == .usage)
        #expect(error.hint?.hasPrefix("Run 'tracker help") == true)
    }

    @Test func showTellsRecordIDsFromNames() {
        #expect(ShowOptions(target: "rec3g0Xxmw2rw3scs").isRecordID)
        #expect(!ShowOptions(target: "rec3g0Xxmw2rw3sc").isRecordID)
        #expect(!ShowOptions(target: "rec3g0Xxmw2rw3s/.").isRecordID)
        #expect(!ShowOptions(target: "CMCA brand identity").isRecordID)
    }

    @Test func helpForACommandMatchesItsFlagHelp() {
        for spec in CommandSpec.all where spec.name != "help" {
            let page = Help.page(for: spec.name)
            for section in ["USAGE", "FLAGS", "EXAMPLES"] {
                #expect(page.contains("\n\(section)\n"), "\(spec.name) lacks \(section)")
            }
            for flag in spec.flags { #expect(page.contains(flag.name)) }
        }
    }
}
