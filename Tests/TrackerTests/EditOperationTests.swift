import Foundation
import Testing
@testable import TrackerModel
@testable import TrackerOperations
@testable import tracker

/// `edit` as an operation, with the command line's editor (a stub run in its place): only what changed in the form is
/// written, and a field changed in Airtable meanwhile is a conflict that writes nothing and keeps what was typed.
@Suite struct EditOperationTests {
    static let id = "recEDITlogo000001"
    private let state = CacheDirectory(
        path: FileManager.default.temporaryDirectory.appendingPathComponent("edit-\(UUID().uuidString)").path)

    static func record(due: String) -> String { Fixture.record(id: id, name: "Logo refresh", due: due) }
    /// The project read by id: a listing of one (`RECORD_ID()` in a formula).
    static func read(due: String) -> StubAnswer { .http(200, body: #"{"records":[\#(record(due: due))]}"#) }

    /// Sessions with the command line's editor, whose program moves the due date to December 5th.
    private func opener(_ answers: [StubAnswer]) -> (SessionOpener, StubTransport.Host) {
        let (workspace, context, host) = OperationTests.workspace(
            answers, state: state,
            routes: [
                "/Clients": .http(200, body: #"{"records":[]}"#), "/Tasks": .http(404, body: #"{"error":"NOT_FOUND"}"#),
            ],
            configure: { context in
                context.runEditor = { _, path in
                    guard let form = try? String(contentsOfFile: path, encoding: .utf8) else { return 1 }
                    let edited = form.replacingOccurrences(of: "2026-12-01", with: "2026-12-05")
                    return (try? edited.write(toFile: path, atomically: false, encoding: .utf8)) == nil ? 1 : 0
                }
            })
        let editor = context.formEditor("an editor")
        return (workspace.opener { $0.editor = editor }, host)
    }

    @Test func onlyTheLineChangedInTheFormIsWritten() async throws {
        defer { try? FileManager.default.removeItem(atPath: state.path) }
        let (opener, host) = opener([
            Self.read(due: "2026-12-01"), Self.read(due: "2026-12-01"),
            .http(200, body: #"{"records":[\#(Self.record(due: "2026-12-05"))]}"#),
        ])
        guard case .project(let project, let wrote) = try await opener.perform(Edit(target: .project(Self.id))) else {
            Issue.record("the project is written")
            return
        }
        #expect(project.due == CalendarDate("2026-12-05"))
        #expect(wrote == ProjectWrite([(.due, .string("2026-12-05"))]))
        let patches = host.requests.filter { $0.method == "PATCH" }
        #expect(patches.count == 1)
        let body = String(decoding: patches.first?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("2026-12-05") && !body.contains("Logo refresh"))
    }

    /// A face that offers no editor (mcp, the board) cannot edit: refused before the record is read.
    @Test func withoutAnEditorNothingIsRead() async throws {
        let (opener, host) = OperationTests.opener([Self.read(due: "2026-12-01")])
        await #expect(throws: Edit.noEditor) { try await opener.perform(Edit(target: .project(Self.id))) }
        #expect(host.requests.allSatisfy { $0.url.path.hasPrefix("/v0/meta/") })
    }

    @Test func aLineChangedInAirtableMeanwhileWritesNothingAndKeepsWhatWasTyped() async throws {
        defer { try? FileManager.default.removeItem(atPath: state.path) }
        let (opener, host) = opener([
            Self.read(due: "2026-12-01"), Self.read(due: "2026-12-03"),
        ])
        await #expect(throws: AppError.self) { try await opener.perform(Edit(target: .project(Self.id))) }
        #expect(host.requests.allSatisfy { $0.method == "GET" })
        let kept = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(kept.count == 1)
        let text = try String(contentsOfFile: state.path + "/" + kept[0], encoding: .utf8)
        #expect(text.contains("2026-12-05"))
    }
}
