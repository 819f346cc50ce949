import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct ProfileTests {
    static let token = ConfigurationTests.token
    static let other = "patZYXWVUTSRQPONML.0000000000000000000000000000000000000000000000000000000000005432"
    static let file = """
        {"default": "work", "table": "Design projects", "timeoutSeconds": 12,
         "profiles": {
           "work": {"token": "\(token)", "baseId": "appWORKbase000001"},
           "client-x": {"token": "\(other)", "baseId": "appCLIENTbase0001", "table": "Jobs",
                        "fields": {"kickoff": null}}}}
        """
    private let scratch = TemporaryDirectory()

    func load(_ text: String, profile: String? = nil, environment: [String: String] = [:]) throws -> Result<
        Configuration, AppError
    > {
        let root = scratch.path + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try text.write(toFile: root + "/Secrets.json", atomically: false, encoding: .utf8)
        chmod(root + "/Secrets.json", 0o600)
        return ConfigurationLoader.load(
            secretsFlag: nil, profile: profile, environment: environment.merging(["HOME": root]) { $1 },
            currentDirectory: root, warn: { _ in })
    }

    @Test func theDefaultProfileThenTheFlagThenTheVariablePickOne() throws {
        let work = try load(Self.file).get()
        #expect(work.profile == "work" && work.baseID == "appWORKbase000001" && work.token == Self.token)
        #expect(work.table == "Design projects" && work.timeoutSeconds == 12, "top-level keys are shared defaults")
        #expect(work.profiles == ["client-x", "work"])
        let client = try load(Self.file, profile: "client-x").get()
        #expect(client.baseID == "appCLIENTbase0001" && client.table == "Jobs" && client.token == Self.other)
        #expect(client.fieldSettings.words[.kickoff] == .absent && client.timeoutSeconds == 12)
        #expect(try load(Self.file, environment: ["TRACKER_PROFILE": "client-x"]).get().profile == "client-x")
        #expect(
            try load(Self.file, profile: "work", environment: ["TRACKER_PROFILE": "client-x"]).get().profile == "work",
            "the flag wins over the variable")
    }

    @Test func anUnknownProfileOrNoWayToChooseIs78NamingTheProfiles() throws {
        let error = try #require(try load(Self.file, profile: "clent-x").failure)
        #expect(error.exitCode.rawValue == 78)
        #expect(error.message.contains(#"no profile "clent-x""#) && error.message.contains(#""client-x", "work""#))
        #expect(error.message.contains(#"Did you mean "client-x"?"#))
        let undecided = Self.file.replacingOccurrences(of: #""default": "work", "#, with: "")
        let none = try #require(try load(undecided).failure)
        #expect(none.exitCode.rawValue == 78 && none.message.contains("several profiles and no \"default\""))
        let flat = try #require(try load(ConfigurationTests.valid, profile: "work").failure)
        #expect(flat.exitCode.rawValue == 78 && flat.message.contains("has no profiles"))
        let badDefault = Self.file.replacingOccurrences(of: #""default": "work""#, with: #""default": "home""#)
        #expect(try load(badDefault).failure?.message.contains(#""default" in"#) == true)
        let nested = Self.file.replacingOccurrences(
            of: #""work": {"token""#, with: #""work": {"profiles": {}, "token""#)
        #expect(try load(nested).failure?.message.contains(#"unknown key "profiles" in profile "work""#) == true)
    }

    @Test func aFlatFileIsOneUnnamedProfileAsBefore() throws {
        let flat = try load(ConfigurationTests.valid).get()
        #expect(flat.profile == nil && flat.profiles.isEmpty && flat.baseID == "appABCDEFGHIJKLMN")
    }

    @Test func aTokenCommandGivesTheTokenFromItsFirstLine() throws {
        let file =
            #"{"tokenCommand": ["printf", "%s\n%s\n", "\#(Self.token)", "second"], "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        let configuration = try load(file).get()
        #expect(configuration.token == Self.token)
        #expect(configuration.tokenOrigin.hasPrefix("tokenCommand (printf"))
        // A profile's own token replaces a top-level command, and the other way round.
        let mixed =
            #"{"tokenCommand": ["false"], "table": "T", "profiles": {"p": {"token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN"}}}"#
        #expect(try load(mixed).get().token == Self.token)
    }

    @Test func aFailingTokenCommandIs78WithItsStatusAndStderrButNeverTheToken() throws {
        let tokenFile = scratch.path + "/token"
        try Self.token.write(toFile: tokenFile, atomically: false, encoding: .utf8)
        let failing =
            #"{"tokenCommand": ["sh", "-c", "cat \#(tokenFile); echo 'gpg: decryption failed' >&2; exit 2"], "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        let error = try #require(try load(failing).failure)
        #expect(error.exitCode.rawValue == 78)
        #expect(error.message.contains("exited with status 2: gpg: decryption failed"))
        #expect(!error.message.contains(Self.token) && !(error.hint ?? "").contains(Self.token))
        let missing = #"{"tokenCommand": ["no-such-program-xyz"], "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        #expect(try load(missing).failure?.message.contains("could not be started: No such file or directory") == true)
        let silent = #"{"tokenCommand": ["true"], "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        #expect(try load(silent).failure?.message.contains("printed no token") == true)
        let notAList = #"{"tokenCommand": "pass show x", "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        #expect(try load(notAList).failure?.message.contains("must be a list of strings") == true)
        let both =
            #"{"tokenCommand": ["true"], "token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        #expect(try load(both).failure?.message.contains("both \"token\" and \"tokenCommand\"") == true)
    }

    @Test(.timeLimit(.minutes(1)))
    func aHangingTokenCommandIsStoppedAtItsTimeLimit() throws {
        let started = Date()
        let result = TokenCommand.run(["sleep", "30"], timeout: 0.5)
        #expect(Date().timeIntervalSince(started) < 10)
        guard case .failure(let error) = result else { return #expect(Bool(false), "a hanging command gave a token") }
        #expect(error.exitCode.rawValue == 78 && error.message.contains("gave no token within 0 s") == false)
        #expect(error.message.contains("and was stopped"))
        // Its stdin is closed: a command that reads it sees the end at once rather than waiting for a person.
        #expect(try TokenCommand.run(["sh", "-c", "cat; echo tok-after-eof"], timeout: 5).get() == "tok-after-eof")
    }

    @Test func aTokenPastedIntoAnotherKeyIsNeverRepeated() throws {
        let pasted = #"{"token": "\#(Self.token)", "baseId": "\#(Self.other)", "table": "T"}"#
        let error = try #require(try load(pasted).failure)
        #expect(!error.message.contains(Self.other) && !error.message.contains("1111111111"))
        #expect(error.message.contains("looks like a token"))
        let asKey = #"{"\#(Self.other)": 1, "token": "\#(Self.token)", "baseId": "appABCDEFGHIJKLMN", "table": "T"}"#
        let keyError = try #require(try load(asKey).failure)
        #expect(!keyError.message.contains(Self.other) && !(keyError.hint ?? "").contains("1111111111"))
    }

    @Test func initWritesAProfileAndKeepsTheOthers() throws {
        let existing = SecretsFile(
            path: "/x", values: [.table: .string("Design projects")],
            mode: 0o600, profiles: ["work": [.token: .string(Self.token), .baseId: .string("appWORKbase000001")]])
        let (text, moved) = existing.adding(
            profile: "client-x",
            [(.tokenCommand, .array([.string("pass"), .string("show")])), (.baseId, .string("appCLIENTbase0001"))])
        #expect(!moved)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let profiles = parsed?["profiles"] as? [String: [String: Any]]
        #expect(profiles?["work"]?["baseId"] as? String == "appWORKbase000001")
        #expect(profiles?["client-x"]?["tokenCommand"] as? [String] == ["pass", "show"])
        #expect(parsed?["default"] as? String == "work" && parsed?["table"] as? String == "Design projects")
        // A flat file's own base becomes profile "main", still the default.
        let flat = SecretsFile(
            path: "/x",
            values: [.token: .string(Self.token), .baseId: .string("appABCDEFGHIJKLMN"), .table: .string("T")],
            mode: 0o600)
        let (converted, didMove) = flat.adding(profile: "p", [(.baseId, .string("appCLIENTbase0001"))])
        let top = try JSONSerialization.jsonObject(with: Data(converted.utf8)) as? [String: Any]
        #expect(didMove && top?["default"] as? String == "main" && top?["token"] == nil)
        #expect((top?["profiles"] as? [String: [String: Any]])?["main"]?["baseId"] as? String == "appABCDEFGHIJKLMN")
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
