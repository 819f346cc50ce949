import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct ConfigurationTests {
    static let token = "patABCDEFGHIJKLMN.0000000000000000000000000000000000000000000000000000000000009876"
    static let valid = #"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects"}"#

    /// Removed when the test is over (Swift Testing makes a fresh suite value for each test).
    private let scratch = TemporaryDirectory()

    /// A fresh directory holding `files` (path → contents), inside this test's scratch directory.
    func directory(_ files: [String: String], mode: mode_t = 0o600) throws -> String {
        let root = scratch.path + "/" + UUID().uuidString
        for (path, contents) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try contents.write(toFile: full, atomically: false, encoding: .utf8)
            chmod(full, mode)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    func load(_ root: String, flag: String? = nil, environment: [String: String] = [:], warnings: Recorder = Recorder())
        -> Result<Configuration, AppError>
    {
        var env = ["HOME": root + "/home"]
        env.merge(environment) { $1 }
        return ConfigurationLoader.load(
            secretsFlag: flag, environment: env, currentDirectory: root + "/work", warn: warnings.append)
    }

    @Test func imagesNamesTheAttachmentFieldAndUploadsGoToTheContentHostUnlessAnEndpointIsSet() throws {
        let plain = try directory(["work/Secrets.json": Self.valid])
        let template = try load(plain).get()
        #expect(template.access.uploadEndpoint.absoluteString == "https://content.airtable.com")
        #expect(template.images == nil)
        let own =
            #"{"token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects", "endpoint": "https://proxy.example.com", "fields": {"images": "Mock-ups", "due": "Deadline"}}"#
        let configured = try load(try directory(["work/Secrets.json": own])).get()
        #expect(configured.access.uploadEndpoint.absoluteString == "https://proxy.example.com")
        #expect(configured.images == .named("Mock-ups"))
        #expect(configured.fieldSettings.words[.due] == .named("Deadline"))
        let none =
            #"{"token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects", "fields": {"images": null}}"#
        #expect(try load(try directory(["work/Secrets.json": none])).get().images == .absent)
        let wrong =
            #"{"token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects", "fields": {"images": 3}}"#
        #expect(throws: (any Error).self) { try load(try directory(["work/Secrets.json": wrong])).get() }
    }

    @Test func readsSecretsJSONInTheWorkingDirectoryWithDefaults() throws {
        let root = try directory(["work/Secrets.json": Self.valid])
        let configuration = try load(root).get()
        #expect(configuration.token == Self.token)
        #expect(configuration.baseID == "appABCDEFGHIJKLMN")
        #expect(configuration.table == "Design projects")
        #expect(configuration.endpoint.absoluteString == "https://api.airtable.com")
        #expect(configuration.requestsPerSecond == 5)
        #expect(configuration.timeoutSeconds == 30)
        #expect(configuration.retryBudgetSeconds == 120)
        #expect(configuration.secretsPath == root + "/work/Secrets.json")
        #expect(configuration.maskedToken == "pat…9876")
    }

    @Test func looksUpFilesInTheDocumentedOrder() throws {
        let other = Self.valid.replacingOccurrences(of: "Design projects", with: "Other")
        let xdg = Self.valid.replacingOccurrences(of: "Design projects", with: "XDG")
        let home = Self.valid.replacingOccurrences(of: "Design projects", with: "Home")
        let root = try directory([
            "flag.json": other, "env.json": xdg.replacingOccurrences(of: "XDG", with: "Env"),
            "work/Secrets.json": Self.valid,
            "xdg/tracker/Secrets.json": xdg, "home/.config/tracker/Secrets.json": home,
        ])
        #expect(
            try load(root, flag: root + "/flag.json", environment: ["TRACKER_SECRETS": root + "/env.json"]).get().table
                == "Other")
        #expect(try load(root, environment: ["TRACKER_SECRETS": root + "/env.json"]).get().table == "Env")
        #expect(try load(root).get().table == "Design projects")
        try FileManager.default.removeItem(atPath: root + "/work/Secrets.json")
        #expect(try load(root, environment: ["XDG_CONFIG_HOME": root + "/xdg"]).get().table == "XDG")
        #expect(try load(root).get().table == "Home")
    }

    @Test func environmentOverridesSingleKeysAndCanReplaceTheFile() throws {
        let root = try directory([:])
        let environment = [
            "AIRTABLE_TOKEN": Self.token, "AIRTABLE_BASE_ID": "appZZZZZZZZZZZZZZ", "AIRTABLE_TABLE": "Projects",
            "AIRTABLE_ENDPOINT_URL": "http://127.0.0.1:8080/",
        ]
        let configuration = try load(root, environment: environment).get()
        #expect(configuration.baseID == "appZZZZZZZZZZZZZZ")
        #expect(configuration.table == "Projects")
        #expect(configuration.endpoint.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.secretsPath == nil)

        let withFile = try directory(["work/Secrets.json": Self.valid])
        #expect(try load(withFile, environment: ["AIRTABLE_TABLE": "Override"]).get().table == "Override")
    }

    /// Without "table" or AIRTABLE_TABLE, the template's table, as init offers it.
    @Test func theTableDefaultsToTheTemplatesAsInitDoes() throws {
        let root = try directory([
            "work/Secrets.json": #"{"token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN"}"#
        ])
        #expect(try load(root).get().table == "Design projects")
    }

    @Test(arguments: [
        (#"{"token": "x", "baseId": "appABCDEFGHIJKLMN", "table": "T", "tabel": "U"}"#, "unknown key \"tabel\""),
        (#"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": 3}"#, "\"table\" in"),
        (#"{"token": "\#(token)", "baseId": "app123", "table": "T"}"#, "is not an Airtable base id"),
        (
            #"{"token": "patXXXXXXXXXXXXXX.0000000000000000000000000000000000000000000000000000000000000000", "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#,
            "still the placeholder"
        ),
        (
            #"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": "T", "endpoint": "http://example.com"}"#,
            "refusing plain http:// endpoint"
        ),
        (
            #"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": "T", "timeoutSeconds": 2.5}"#,
            "\"timeoutSeconds\" in"
        ),
        (
            #"{"token": "\#(token)", "baseId": "appABCDEFGHIJKLMN", "table": "T", "requestsPerSecond": 0}"#,
            "\"requestsPerSecond\" in"
        ),
        (#"{"token": \#(token), "baseId": "appABCDEFGHIJKLMN"}"#, "is not a JSON object"),
        (#"["token"]"#, "is not a JSON object"),
    ])
    func rejectsBadFilesWithExit78NamingTheProblem(contents: String, fragment: String) throws {
        let root = try directory(["work/Secrets.json": contents])
        let error = try #require(load(root).failure)
        #expect(error.exitCode == .configuration)
        #expect(error.message.contains(fragment), "\(error.message)")
        #expect(!error.message.contains(Self.token) && !(error.hint ?? "").contains(Self.token))
    }

    @Test func suggestsTheKeyATypoMeant() throws {
        let root = try directory(["work/Secrets.json": #"{"token": "x", "baseID": "appABCDEFGHIJKLMN", "table": "T"}"#])
        #expect(try #require(load(root).failure).message.contains("Did you mean \"baseId\"?"))
    }

    @Test func missingEverythingNamesThePathsLookedInAndPointsAtInit() throws {
        let root = try directory([:])
        let error = try #require(load(root).failure)
        #expect(error.exitCode == .configuration)
        #expect(
            error.message
                == "no secrets found: looked for \(root)/work/Secrets.json and \(root)/home/.config/tracker/Secrets.json, and AIRTABLE_TOKEN is not set"
        )
        #expect(
            error.hint
                == "Run 'tracker init' to create one, or set AIRTABLE_TOKEN and AIRTABLE_BASE_ID (and AIRTABLE_TABLE if the table is not \"Design projects\")."
        )
        let homeless = ConfigurationLoader.load(
            secretsFlag: nil, environment: [:], currentDirectory: root + "/work", warn: { _ in })
        #expect(
            homeless.failure?.message
                == "no secrets found: looked for \(root)/work/Secrets.json (HOME is not set), and AIRTABLE_TOKEN is not set"
        )
    }

    @Test func anExplicitPathThatDoesNotExistIsAnError() throws {
        let root = try directory(["work/Secrets.json": Self.valid])
        let error = try #require(load(root, flag: root + "/nope.json").failure)
        #expect(error.message == "--secrets names \(root)/nope.json, which does not exist")
    }

    @Test func aDirectoryWhereTheFileShouldBeIsNamedAsSuch() throws {
        let root = try directory([:])
        try FileManager.default.createDirectory(atPath: root + "/work/Secrets.json", withIntermediateDirectories: true)
        let error = try #require(load(root).failure)
        #expect(error.message == "\(root)/work/Secrets.json is a directory, not a secrets file")
        #expect(error.exitCode == .configuration)
    }

    @Test func warnsOnceWhenOthersCanReadTheFile() throws {
        let warnings = Recorder()
        let root = try directory(["work/Secrets.json": Self.valid], mode: 0o644)
        _ = try load(root, warnings: warnings).get()
        #expect(
            warnings.text
                == "warning: \(root)/work/Secrets.json is readable by other users; run: chmod 600 '\(root)/work/Secrets.json'"
        )
        let quiet = Recorder()
        _ = try load(try directory(["work/Secrets.json": Self.valid]), warnings: quiet).get()
        #expect(quiet.text.isEmpty)
    }

    @Test(arguments: [
        "http://localhost:9", "http://127.0.0.1", "http://127.1.2.3:80", "http://[::1]:8080",
        "https://api.airtable.com",
    ])
    func allowsHTTPOnlyOnLoopback(endpoint: String) throws {
        let root = try directory([:])
        let environment = [
            "AIRTABLE_TOKEN": Self.token, "AIRTABLE_BASE_ID": "appABCDEFGHIJKLMN", "AIRTABLE_TABLE": "T",
            "AIRTABLE_ENDPOINT_URL": endpoint,
        ]
        #expect(throws: Never.self) { try load(root, environment: environment).get() }
    }

    @Test(arguments: [
        "http://128.0.0.1", "http://localhost.example.com", "http://10.0.0.1", "ftp://127.0.0.1", "not a url",
    ])
    func refusesOtherEndpoints(endpoint: String) throws {
        let root = try directory([:])
        let environment = [
            "AIRTABLE_TOKEN": Self.token, "AIRTABLE_BASE_ID": "appABCDEFGHIJKLMN", "AIRTABLE_TABLE": "T",
            "AIRTABLE_ENDPOINT_URL": endpoint,
        ]
        #expect(try #require(load(root, environment: environment).failure).exitCode == .configuration)
    }

    @Test func fieldsMapsRenamedFieldsAndLeavesTheRestAsInTheTemplate() throws {
        let text = Self.valid.dropLast() + #", "fields": {"due": "Deadline", "lead": "Owner"}}"#
        let root = try directory(["work/Secrets.json": String(text)])
        let fields = try load(root).get().fieldSettings.assumed
        #expect(fields[.due] == "Deadline")
        #expect(fields[.lead] == "Owner")
        #expect(fields[.name] == "Name")
        #expect(
            fields.names == [
                "Name", "Category", "Complete", "Kickoff date", "Deadline", "Owner", "Project team", "Client", "Notes",
            ])
    }

    @Test(arguments: [
        (#""fields": {"deu": "Deadline"}"#, #"unknown word "deu" in "fields" of"#, #"Did you mean "due"?"#),
        (#""fields": {"due": ""}"#, #""fields"."due" in"#, "must be the name of a field"),
        (#""fields": {"due": 3}"#, #""fields"."due" in"#, "must be the name of a field"),
        (#""fields": {"complete": {"field": "Status"}}"#, #""fields"."complete" in"#, #"needs "field" and "done""#),
        (
            #""fields": {"complete": {"field": "Status", "done": "Done", "when": "x"}}"#, #"unknown key "when""#,
            "it takes"
        ),
        (#""fields": {"kickoff": {"field": "Status", "done": "Done"}}"#, #""fields"."kickoff" in"#, "or null"),
        (#""complete": "Status""#, #""complete" in"#, #"belongs inside "fields""#),
        (#""fields": ["due"]"#, #""fields" in"#, "must be an object"),
        (
            #""fields": {"due": "Due {date}"}"#, #""fields"."due" in"#,
            #"names "Due {date}"; tracker cannot use a field whose name has { or }"#
        ),
    ])
    func aBadFieldsMappingIsAConfigurationErrorThatSaysWhat(member: String, start: String, detail: String) throws {
        let root = try directory(["work/Secrets.json": String(Self.valid.dropLast()) + ", " + member + "}"])
        let error = try #require(load(root).failure)
        #expect(error.exitCode == .configuration)
        #expect(error.message.hasPrefix(start), "\(error.message)")
        #expect(error.message.contains(detail) || error.hint?.contains(detail) == true, "\(error.message)")
    }
}

extension ConfigurationTests {
    @Test func aRedisFromTheFileOrTheEnvironment() throws {
        let root = try directory([
            "work/Secrets.json":
                #"{"token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN", "table": "Design projects", "redis": "redis://:pw-in-file@cache:6380/1"}"#
        ])
        let fromFile = try load(root).get()
        #expect(fromFile.redis?.place == .tcp(host: "cache", port: 6380, tls: false))
        #expect(fromFile.redis?.password == "pw-in-file" && fromFile.redis?.database == 1)
        let fromEnvironment = try load(root, environment: ["TRACKER_REDIS_URL": "unix:///run/redis.sock"]).get()
        #expect(fromEnvironment.redis?.place == .unix(path: "/run/redis.sock"))
        #expect(try load(try directory(["work/Secrets.json": Self.valid])).get().redis == nil)
    }

    @Test func aMalformedRedisIsConfigurationWithoutRepeatingIt() throws {
        let root = try directory(["work/Secrets.json": Self.valid])
        let result = load(root, environment: ["TRACKER_REDIS_URL": "http://user:very-secret@cache"])
        guard case .failure(let error) = result else {
            Issue.record("a malformed address was accepted")
            return
        }
        #expect(error.exitCode == .configuration)
        #expect(error.message.hasPrefix("TRACKER_REDIS_URL is not a Redis address"))
        #expect(!error.message.contains("very-secret") && !(error.hint ?? "").contains("very-secret"))
        let missingCA = load(
            root, environment: ["TRACKER_REDIS_URL": "rediss://cache", "TRACKER_REDIS_CA": root + "/nothing.pem"])
        #expect((try? missingCA.get()) == nil)
    }
}

extension ConfigurationTests {
    @Test func everyUnknownKeyIsNamedInTheFilesOrderEveryRun() throws {
        let file =
            #"{"apiKey": "x", "baseId": "appABCDEFGHIJKLMN", "table": "T", "endpointURL": "https://api.airtable.com", "colour": 1}"#
        let root = try directory(["work/Secrets.json": file])
        let messages = try (0..<5).map { _ in try #require(load(root).failure).message }
        #expect(Set(messages).count == 1, "the same message every run")
        #expect(
            messages[0]
                == "unknown keys \"apiKey\", \"endpointURL\", \"colour\" in \(root)/work/Secrets.json. Did you mean \"token\" for \"apiKey\", \"endpoint\" for \"endpointURL\"?"
        )
        // One unknown key alone: the tutorial's apiKey is the token.
        let one = try directory(["work/Secrets.json": #"{"apiKey": "x", "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#])
        #expect(try #require(load(one).failure).message.hasSuffix("Did you mean \"token\"?"))
    }
}
