import TrackerModel
import TrackerOperations

/// `tracker done`: marks projects complete and prints their ids.
struct Done: Command {
    static let spec = CommandSpec(
        name: "done", summary: "Mark projects complete.",
        usage: ["tracker done ID|NAME... [--dry-run] [--json] [-q]"], positional: "ID|NAME...", arguments: .projects,
        flags: CommandSpec.writeFlags,
        examples: ["tracker done \"Spring campaign\"", "tracker done rec3g0Xxmw2rw3scs \"Logo refresh\""],
        notes: [
            CommandSpec.namingNote,
            "Every name is found before anything is written; a project already complete is not an error.",
            "It prints the ids, one a line.",
        ])

    var targets: [String]
    var mode = WriteMode()

    func run(_ runner: Runner) async throws {
        try await runner.setComplete(true, targets: targets, mode: mode)
    }
}

extension Done {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        self.init(targets: try scanned.projectTargets(), mode: try scanned.writeMode())
    }
}
