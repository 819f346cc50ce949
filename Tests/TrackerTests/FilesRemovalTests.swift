import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerOperations
@testable import tracker

/// `files --remove` as the operations' own: every name found before anything is written, nothing written where
/// nobody can be asked and `--yes` was not given, and the one write sent through the session (so a schema read that
/// contradicts the layout afterwards never runs it again).
@Suite struct FilesRemovalTests {
    static let cell = AttachmentCell(
        table: "Design projects", recordID: "recFILEholder0001", field: "Project images", fieldID: nil)
    static let read = FilesRead(
        holder: FileHolder(name: "Coffee packaging", cell: cell),
        attachments: [
            Attachment(id: "attAAAAAAAAAAAAAA", filename: "a.png"),
            Attachment(id: "attBBBBBBBBBBBBBB", filename: "b.pdf"),
        ])
    static let files = Files(owner: .project("Coffee packaging"), action: .list(nil))

    @Test func oneWriteKeepsTheRestAndIsSentThroughTheSession() async throws {
        let kept =
            #"{"id":"recFILEholder0001","fields":{"Project images":[{"id":"attBBBBBBBBBBBBBB","filename":"b.pdf"}]}}"#
        let (opener, host) = OperationTests.opener([.http(200, body: kept)])
        let session = try await opener.session(.schemaFirst)
        let removed = try await Self.files.remove(
            ["a.png"], from: Self.read, confirmed: true, dryRun: false, in: session)
        guard case .removed(let asked, let gone) = removed else {
            Issue.record("not removed: \(removed)")
            return
        }
        #expect(asked.map(\.id) == ["attAAAAAAAAAAAAAA"] && gone.map(\.id) == ["attAAAAAAAAAAAAAA"])
        let writes = host.requests.filter { $0.method != "GET" }
        #expect(writes.map(\.method) == ["PATCH"])
        let body = String(decoding: writes.first?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("attBBBBBBBBBBBBBB") && !body.contains("attAAAAAAAAAAAAAA"), "the rest kept: \(body)")
        #expect(session.attempt.hasWritten, "a write the session knows of: never run again with the schema first")
    }

    @Test func nothingIsWrittenWhereNobodyCanBeAskedOrANameIsUnknown() async throws {
        let (opener, host) = OperationTests.opener([])
        let session = try await opener.session(.schemaFirst)
        await #expect(throws: AppError.self) {
            try await Self.files.remove(["a.png"], from: Self.read, confirmed: false, dryRun: false, in: session)
        }
        await #expect(throws: AppError.self) {
            try await Self.files.remove(
                ["a.png", "c.gif"], from: Self.read, confirmed: true, dryRun: false, in: session)
        }
        let planned = try await Self.files.remove(
            ["b.pdf"], from: Self.read, confirmed: false, dryRun: true, in: session)
        guard case .planned(let request) = planned else {
            Issue.record("not planned: \(planned)")
            return
        }
        #expect(request.method == "PATCH")
        #expect(host.requests.allSatisfy { $0.method == "GET" }, "nothing written")
    }
}
