import Foundation
import Testing
@testable import TrackerModel
@testable import TrackerSystem
@testable import TrackerOperations
@testable import tracker

/// `init` as an operation on the configuration itself: the answers are checked with one read before the file is
/// written, and a file that is there is refused before anyone is asked anything.
@Suite struct InitOperationTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("init-\(UUID().uuidString)")
        .path

    @Test func theAnswersAreCheckedThenWrittenPrivately() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (workspace, _, host) = OperationTests.workspace([.http(200, body: Fixture.page(["a"]))])
        let concealed = Locked<[String]>([])
        var setup = workspace.setup()
        setup.conceal = { secret in concealed.withLock { $0.append(secret) } }
        let path = directory + "/Secrets.json"
        let saved = try await Init(base: "appTESTbase000001", path: path, token: Fixture.token).run(in: setup)
        #expect(saved.path == path && saved.baseID == "appTESTbase000001" && saved.table == "Design projects")
        #expect(!saved.source.contains(Fixture.token))
        #expect(concealed.withLock { $0 } == [Fixture.token])
        #expect(host.requests.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains(Fixture.token) && written.contains("appTESTbase000001"))
    }

    @Test func aTokenAirtableRefusesWritesNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (workspace, _, _) = OperationTests.workspace([
            .http(401, body: #"{"error":{"type":"AUTHENTICATION_REQUIRED","message":"Authentication required"}}"#)
        ])
        let path = directory + "/Secrets.json"
        await #expect(throws: AppError.self) {
            try await Init(base: "appTESTbase000001", path: path, token: Fixture.token).run(in: workspace.setup())
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileThatIsThereIsRefusedBeforeAnyoneIsAsked() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/Secrets.json"
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        let (workspace, _, host) = OperationTests.workspace([])
        let asked = Locked(false)
        await #expect(throws: AppError.self) {
            try await Init(path: path).run(in: workspace.setup()) { _ in
                asked.withLock { $0 = true }
                return Init.Answers(token: Fixture.token, baseID: "appTESTbase000001", table: "Design projects")
            }
        }
        #expect(!asked.withLock { $0 } && host.requests.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}")
    }
}
