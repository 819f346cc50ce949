import Foundation
import Testing

@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerOperations
@testable import TrackerSystem

/// What every face's sessions stand on: the configuration read once (a token command runs once), its secret told to
/// the face before anything could say it, and a configuration another workspace of the process read is not read again.
@Suite struct WorkspaceTests {
    static func surface(environment: [String: String], concealed: Locked<[String]>) -> Workspace.Surface {
        var surface = Workspace.Surface(
            environment: environment, currentDirectory: "/nonexistent", today: CalendarDate("2026-11-28")!,
            timeZone: Zone(identifier: "UTC")!, now: { Date(timeIntervalSince1970: 1_795_000_000) },
            network: TestClock().environment(), makeTransport: { _ in StubTransport() },
            prepareRuntimeDirectory: { .none },
            coordinate: { _, directory, _ in MachineCoordination(directory: directory) },
            userAgent: "tracker/test")
        surface.conceal = { secret in concealed.withLock { $0.append(secret) } }
        return surface
    }

    static let environment = [
        "AIRTABLE_TOKEN": Fixture.token, "AIRTABLE_BASE_ID": "appTESTbase000001", "HOME": "/nonexistent",
    ]

    @Test func theConfigurationIsReadOnceAndItsTokenConcealedFirst() throws {
        let concealed = Locked<[String]>([])
        var surface = Self.surface(environment: Self.environment, concealed: concealed)
        let remembered = Locked<Configuration?>(nil)
        surface.rememberedConfiguration = remembered
        let workspace = Workspace(surface)
        let first = try workspace.loadConfiguration()
        for _ in 0..<3 { #expect(try workspace.loadConfiguration() == first) }
        #expect(first.baseID == "appTESTbase000001")
        #expect(concealed.withLock { $0 } == [Fixture.token], "told once, before it was handed out")
        #expect(remembered.withLock { $0 } == first, "kept for the process's next workspace")
    }

    @Test func aConfigurationAnotherWorkspaceReadIsNotReadAgain() throws {
        let concealed = Locked<[String]>([])
        let first = try Workspace(Self.surface(environment: Self.environment, concealed: concealed))
            .loadConfiguration()
        // Nothing in this environment could be read: the configuration comes from the one remembered.
        var surface = Self.surface(environment: ["HOME": "/nonexistent"], concealed: concealed)
        surface.rememberedConfiguration = Locked(first)
        #expect(try Workspace(surface).loadConfiguration() == first)
        #expect(concealed.withLock { $0 } == [Fixture.token, Fixture.token], "each workspace's face told")
        #expect(throws: AppError.self) {
            try Workspace(Self.surface(environment: ["HOME": "/nonexistent"], concealed: concealed)).loadConfiguration()
        }
    }
}
