import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// The names file behind TAB (docs/contract.md "Names at TAB") and what `tracker __complete` makes of it.
@Suite(.timeLimit(.minutes(2)))
struct NamesFileTests {
    @Test func whatWasJustReadComesFirstAndOnlyAWholeListingForgets() {
        var names = NamesFile()
        names.remember(projects: ["Old", "Kept"], replacing: true)
        names.remember(projects: ["New", "Kept", "", "New"], replacing: false)
        #expect(names.projects == ["New", "Kept", "Old"])
        names.remember(projects: ["Kept"], replacing: true)
        #expect(names.projects == ["Kept"])
    }

    @Test func atMostTheLimitIsKept() {
        var names = NamesFile()
        names.remember(projects: (0..<NamesFile.projectLimit).map { "old \($0)" }, replacing: true)
        names.remember(projects: ["fresh"], replacing: false)
        #expect(names.projects.count == NamesFile.projectLimit)
        #expect(names.projects.first == "fresh")
        #expect(!names.projects.contains("old \(NamesFile.projectLimit - 1)"))
    }

    @Test func itRoundTripsAndRefusesAnotherVersion() {
        var names = NamesFile()
        names.remember(projects: [#"Bob's "quoted" launch"#, "Ünïcode ☕"], replacing: true)
        names.views = ["High priority"]
        names.fields = ["Budget"]
        names.categories = ["Brand identity"]
        #expect(NamesFile(data: names.data) == names)
        #expect(NamesFile(data: Data(#"{"version": 2, "projects": ["a"]}"#.utf8)) == nil)
        #expect(NamesFile(data: Data("not json".utf8)) == nil)
    }

    @Test func eachBaseAndTableHasItsOwnFileAndTheNameCarriesNoSecret() {
        let endpoint = URL(string: "https://api.airtable.com")!
        let one = NamesFile.fileName(endpoint: endpoint, baseID: "appAAAAAAAAAAAAAA", table: "Design projects")
        #expect(one != NamesFile.fileName(endpoint: endpoint, baseID: "appAAAAAAAAAAAAAA", table: "Jobs"))
        #expect(one != NamesFile.fileName(endpoint: endpoint, baseID: "appBBBBBBBBBBBBBB", table: "Design projects"))
        #expect(NamesFile.fileName(endpoint: endpoint, baseID: "../../etc", table: "x").hasPrefix("names-etc-"))
    }

    /// `__complete` in a directory of its own, its names file holding `projects`.
    private func complete(_ arguments: [String], projects: [String]?, secrets: String? = nil) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = CacheDirectory(path: directory.path + "/cache")
        var environment = ["HOME": directory.path]
        if let secrets {
            try secrets.write(to: directory.appendingPathComponent("Secrets.json"), atomically: false, encoding: .utf8)
            chmod(directory.appendingPathComponent("Secrets.json").path, 0o600)
        } else {
            environment["AIRTABLE_BASE_ID"] = "appTESTbase000001"
            environment["AIRTABLE_TABLE"] = "Design projects"
        }
        if let projects {
            var names = NamesFile()
            names.remember(projects: projects, replacing: true)
            cache.write(
                names.data,
                to: NamesFile.fileName(
                    endpoint: Configuration.defaultEndpoint, baseID: "appTESTbase000001", table: "Design projects"))
        }
        let err = Recorder()
        let context = Context(
            environment: environment,
            output: Output(
                standardOutput: { _ in }, standardError: err.append, isStdoutTerminal: false, isStderrTerminal: false,
                terminalWidth: 80),
            currentDirectory: directory.path, cacheDirectory: cache)
        defer { #expect(err.text.isEmpty, "TAB prints no error") }
        return CompletionNames.lines(arguments, context: context)
    }

    @Test func aNameHoldingAControlCharacterIsNeverOffered() throws {
        let offered = try complete(
            ["projects"], projects: ["Plain", "Evil \u{1B}]0;owned\u{07}", "Two\nlines", "Tab\there", "Ünïcode ☕"])
        #expect(offered == ["Plain", "Ünïcode ☕"])
    }

    @Test func withoutANamesFileOnlyTheTemplatesValuesAreOffered() throws {
        #expect(try complete(["projects"], projects: nil) == [])
        #expect(try complete(["categories"], projects: nil).contains("Brand identity"))
        #expect(try complete(["columns"], projects: nil).contains("due"))
        #expect(try complete(["nonsense"], projects: ["a"]) == [])
    }

    @Test func profilesComeFromTheSecretsFileWithoutAToken() throws {
        let secrets = #"{"profiles": {"b": {"tokenCommand": ["false"]}, "a": {}}, "baseId": "appTESTbase000001"}"#
        #expect(try complete(["profiles"], projects: nil, secrets: secrets) == ["a", "b"])
        // A profile that needs a token command still completes: the command is not run at TAB.
        let table = #""table": "Design projects""#
        let withTable = #"{"profiles": {"b": {"tokenCommand": ["false"], \#(table)}}, "baseId": "appTESTbase000001"}"#
        #expect(try complete(["projects", "--profile", "b"], projects: ["x"], secrets: withTable) == ["x"])
    }
}
