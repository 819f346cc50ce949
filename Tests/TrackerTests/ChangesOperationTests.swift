import Foundation
import Testing
@testable import TrackerModel
@testable import TrackerOperations
@testable import tracker

/// `changes` as an operation: what it finds is typed, and the snapshot it would replace is handed back unwritten, so
/// the face keeps it only once it has shown the changes.
@Suite struct ChangesOperationTests {
    /// A state directory of its own, removed at the end.
    private let state = CacheDirectory(
        path: FileManager.default.temporaryDirectory.appendingPathComponent("changes-\(UUID().uuidString)").path)

    /// Runs of `changes` over one table whose listings hold `pages`' names in turn (a view picks them, so no
    /// webhook is asked).
    private func runs(_ pages: [[String]]) -> (Changes) async throws -> ChangesOutcome {
        let (opener, _) = OperationTests.opener(
            pages.map { .http(200, body: Fixture.page($0)) }, state: state, schemaReads: pages.count + 2)
        return { try await opener.perform($0) }
    }

    @Test func changesShownButNotKeptAreFoundAgainAndKeptOnesAreNot() async throws {
        defer { try? FileManager.default.removeItem(atPath: state.path) }
        let renamed = ["Alpha", "Beta renamed"]
        let run = runs([["Alpha", "Beta"], renamed, renamed, renamed, renamed])
        let changes = Changes(view: "All projects")
        guard case .remembered(2, let first) = try await run(changes) else {
            Issue.record("the first run remembers the table")
            return
        }
        try first.keep()
        // Shown, but the face failed before keeping the snapshot: the next run finds the same change.
        for _ in 0..<2 {
            guard case .changed(let found, _) = try await run(changes) else {
                Issue.record("a later run finds changes")
                return
            }
            #expect(found.map(\.kind) == [.changed])
            #expect(found.first?.name == "Beta renamed")
        }
        guard case .changed(_, let shown) = try await run(changes) else { return }
        try shown.keep()
        guard case .changed(let none, let unchanged) = try await run(changes) else { return }
        #expect(none.isEmpty)
        // The file already says what the table holds: nothing to write.
        #expect(unchanged.bytes == nil)
    }

    @Test func aResetForgetsTheSnapshot() async throws {
        defer { try? FileManager.default.removeItem(atPath: state.path) }
        let run = runs([["Alpha"], ["Alpha"]])
        guard case .remembered(_, let first) = try await run(Changes(view: "All projects")) else { return }
        try first.keep()
        guard case .forgotten = try await run(Changes(view: "All projects", reset: true)) else {
            Issue.record("a reset forgets")
            return
        }
        guard case .remembered(1, _) = try await run(Changes(view: "All projects")) else {
            Issue.record("after a reset, the next run remembers afresh")
            return
        }
    }

    @Test func withNowhereToRememberItRefusesBeforeReading() async throws {
        let (opener, host) = OperationTests.opener([])
        await #expect(throws: AppError.self) { try await opener.perform(Changes()) }
        #expect(host.requests.filter { !$0.url.path.hasPrefix("/v0/meta/") }.isEmpty)
    }
}
