import Foundation
import Testing
@testable import TrackerModel
@testable import TrackerOperations
@testable import tracker

/// `doctor` as an operation on the configuration itself: every check runs and is handed back typed, whatever the
/// others found.
@Suite struct DoctorOperationTests {
    @Test func withoutAConfigurationEveryCheckSaysSoAndNothingIsAsked() async throws {
        let (workspace, _, host) = OperationTests.workspace([]) { $0.environment["AIRTABLE_TOKEN"] = nil }
        let report = try await Doctor().run(in: workspace.setup())
        #expect(report.configuration == nil)
        #expect(
            report.checks.map(\.name) == ["configuration", "token", "table", "fields", "pace", "sharing", "deletions"])
        #expect(report.checks.allSatisfy { !$0.ok })
        #expect(report.firstFailure?.exitCode == .configuration)
        #expect(host.requests.isEmpty)
    }

    @Test func aTemplateBaseAnswersEveryCheckAndTheJSONSaysEach() async throws {
        let (workspace, _, _) = OperationTests.workspace(
            [.http(200, body: Fixture.page(["a"]))],
            routes: [
                "/whoami": .http(200, body: #"{"id":"usrTEST0000000001","email":"ann@example.com"}"#),
                "/tables": .http(200, body: Fixture.templateSchema), "/webhooks": .http(200, body: #"{"webhooks":[]}"#),
            ])
        let report = try await Doctor().run(in: workspace.setup())
        let byName = Dictionary(report.checks.map { ($0.name, $0) }) { first, _ in first }
        #expect(report.firstFailure == nil)
        #expect(byName["token"]?.detail == "token accepted (user usrTEST0000000001, ann@example.com)")
        #expect(byName["fields"]?.detail.hasPrefix("all 9 fields tracker uses exist") == true)
        #expect(byName["tasks"]?.isSkipped == true && byName["files"]?.isSkipped == true)
        #expect(byName["deletions"]?.detail.hasPrefix("no webhook yet") == true)
        let json = report.json.serialized()
        #expect(json.hasPrefix(#"{"checks":[{"name":"configuration","ok":true,"#))
    }
}
