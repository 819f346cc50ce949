import Foundation
import Testing
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerOperations
@testable import tracker

/// `import` as an operation: a plan from the rows and what exists, then new projects written as upserts on the key,
/// so an import run again after a failure adds nothing twice.
@Suite struct ImportOperationTests {
    static let rows = "name,due\nAlpha,2026-12-01\nBeta,2026-12-02\n"
    /// Alpha exists as the file says; Beta is new.
    static let existing = StubAnswer.http(200, body: Fixture.page(["Alpha"]))

    @Test func aDryRunPlansEveryRowAndWritesNothing() async throws {
        let (opener, host) = OperationTests.opener([Self.existing])
        var mode = WriteMode()
        mode.dryRun = true
        let plan = try await opener.perform(Import(text: Self.rows, mode: mode))
        #expect(plan.summary(("create", "update", "unchanged")) == "create 1, update 0, unchanged 1")
        #expect(
            host.requests.filter {
                $0.method == "PATCH" || $0.method == "POST" && !$0.url.path.hasSuffix("/listRecords")
            }
            .isEmpty)
    }

    @Test func newProjectsGoAsUpsertsOnTheKeyAndEachWrittenRowIsHeard() async throws {
        let created = StubAnswer.http(
            200, body: #"{"records":[\#(Fixture.record(id: "recBETA0000000001", name: "Beta", due: "2026-12-02"))]}"#)
        let (opener, host) = OperationTests.opener([Self.existing, created])
        let importing = Import(text: Self.rows)
        var heard: [String] = []
        _ = try await opener.perform(importing) { session in
            try await importing.run(in: session) { event in
                if case .written(let lines, let projects, let action) = event {
                    heard += zip(lines, projects).map { "\($0) \($1.id) \(action)" }
                }
            }
        }
        #expect(heard == ["3 recBETA0000000001 created"])
        let writes = host.requests.filter { $0.method == "PATCH" }
        #expect(writes.count == 1)
        let body = try #require(
            writes.first?.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        let upsert = body["performUpsert"] as? [String: Any]
        #expect(upsert?["fieldsToMergeOn"] as? [String] == ["Name"])
    }

    @Test func aBadRowStopsTheWholeImportBeforeAnythingIsWritten() async throws {
        let (opener, host) = OperationTests.opener([Self.existing])
        await #expect(throws: AppError.self) {
            try await opener.perform(Import(text: Self.rows + "Gamma,not a date\n"))
        }
        #expect(host.requests.filter { $0.method == "PATCH" }.isEmpty)
    }
}
