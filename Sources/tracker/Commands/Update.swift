#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// `tracker update`: changes some fields of one project; the others stay as they are.
struct Update: Command {
    static let spec = CommandSpec(
        name: "update", summary: "Change some fields of one project; the others stay as they are.",
        usage: [
            "tracker update ID|NAME [--name NAME] [--due DATE] [--kickoff DATE] [--category NAME] [--lead EMAIL]",
            "               [--team EMAIL]... [--client NAME|ID]... [--notes TEXT | --notes-file PATH|-]",
            "               [--complete | --incomplete] [--set FIELD=VALUE]... [--clear FIELD[,FIELD]...]",
            "               [--dry-run] [--json] [-q]",
        ],
        positional: "ID|NAME", arguments: .projects,
        flags: CommandSpec.fieldFlags + [
            FlagSpec(name: "--complete", help: "mark the project complete"),
            FlagSpec(name: "--incomplete", help: "mark the project not complete"),
            FlagSpec(
                name: "--clear", value: "FIELDS", repeatable: true, choices: CommandSpec.clearable.map(\.rawValue),
                checksChoices: false,
                help: "empty these fields: kickoff, lead, team, client, notes, category, due, or any of the base's"),
        ] + CommandSpec.writeFlags,
        examples: [
            "tracker update \"Spring campaign\" --due friday",
            "tracker update rec3g0Xxmw2rw3scs --team ana@example.com --team \"Sam Epps\"",
            "tracker update \"Logo refresh\" --clear kickoff,notes --dry-run",
            "tracker update \"Logo refresh\" --set Priority=high --set Tags=web,print",
        ],
        notes: [
            CommandSpec.namingNote, CommandSpec.dateNote,
            "--team and --client replace the whole list. It prints the project's id.",
        ])

    var target: String
    var input: ProjectInput
    var mode = WriteMode()

    func run(_ runner: Runner) async throws { try await runner.update(self) }
}

extension Update {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.projectTarget()
        try scanned.rejectPositionals(allowed: 1)
        let input = try scanned.projectInput(today: today)
        guard !input.isEmpty else {
            throw AppError.usage(
                "update needs something to change, e.g. --due friday or --clear notes", command: "update")
        }
        self.init(target: target, input: input, mode: try scanned.writeMode())
    }
}

extension Runner {
    /// `tracker update`: changes only the given fields of one project (PATCH) and prints its id.
    fileprivate func update(_ options: Update) async throws {
        // Values only the schema can check (a choice, a person, a link, the base's own fields) wait for it; the
        // others go out beside it, cold.
        let base = try await prepareBase(readingBeside: !options.input.needsSchema)
        let client = base.client
        let notes = try readNotes(options.input.notes, command: "update")
        func check(_ base: Session) async throws -> ProjectWrite {
            try await base.checker(command: "update").write(for: options.input, notes: notes)
        }
        func apply(_ change: ProjectChange) async throws -> Project? {
            var updated: Project?
            try await base.writing(recheck: { _ = try await check($0) }) {
                try await client.updateProjects([change]) { updated = $0.first }
            }
            return updated
        }
        // By id, the write itself is the one request; a name is looked up while the values are checked.
        let target = options.target
        let isID = ProjectAPIClient.looksLikeRecordID(target) && !options.mode.dryRun
        async let checked = check(base)
        async let named = isID ? nil : base.namingForWrites().resolve(target)
        let write = try await checked
        var updated: Project?
        let wroteByID = try await base.writtenByID([target], allowed: isID) { ids in
            updated = try await apply(ProjectChange(id: ids[0], write: write))
        }
        if !wroteByID {
            let project: Project
            if let found = try await named {
                project = found
            } else {
                project = try await base.namingForWrites().resolve(target)
            }
            _ = try await base.confirmedLayout()
            let change = ProjectChange(id: project.id, write: write)
            if options.mode.dryRun { return try printPlanned(client.plannedUpdates([change])) }
            updated = try await apply(change) ?? project
        }
        await base.finish()
        guard let updated else { return }
        narrate("Updated \"\(updated.name ?? updated.id)\": \(describe(write, as: updated)).", options.mode)
        try printWritten(updated, options.mode)
    }
}
