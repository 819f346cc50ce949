import TrackerModel
import TrackerOperations

/// `tracker reopen`: marks projects not complete again and prints their ids.
struct Reopen: Command {
    static let spec = CommandSpec(
        name: "reopen", summary: "Mark projects not complete again.",
        usage: ["tracker reopen ID|NAME... [--dry-run] [--json] [-q]"], positional: "ID|NAME...", arguments: .projects,
        flags: CommandSpec.writeFlags,
        examples: ["tracker reopen \"Spring campaign\""],
        notes: [CommandSpec.namingNote, "It prints the ids, one a line."])

    var targets: [String]
    var mode = WriteMode()

    func run(_ runner: Runner) async throws {
        try await runner.setComplete(false, targets: targets, mode: mode)
    }
}

extension Reopen {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        self.init(targets: try scanned.projectTargets(), mode: try scanned.writeMode())
    }
}
