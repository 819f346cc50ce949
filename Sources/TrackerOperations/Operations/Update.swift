import TrackerAPI
import TrackerModel

/// `tracker update`: changes some fields of one project; the others stay as they are.
package struct Update: Operation, Equatable {
    package static let spec = CommandSpec(
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

    package var target: String
    package var input: ProjectInput
    package var mode = WriteMode()

    /// Each value given.
    package init(target: String, input: ProjectInput, mode: WriteMode = WriteMode()) {
        self.target = target
        self.input = input
        self.mode = mode
    }

    // Values only the schema can check (a choice, a person, a link, the base's own fields) wait for it; the others go
    // out beside it, cold.
    package var opening: SessionOpening { SessionOpening(readingBeside: !input.needsSchema) }

    /// Changes only the given fields of one project (PATCH).
    package func run(in session: Session) async throws -> Updated {
        let client = session.client
        let notes = try session.readNotes(input.notes, command: "update")
        let input = input
        func check(_ session: Session) async throws -> ProjectWrite {
            try await session.checker(command: "update").write(for: input, notes: notes)
        }
        func apply(_ change: ProjectChange, known: [Project] = []) async throws -> Project? {
            var updated: Project?
            try await session.writing(recheck: { _ = try await check($0) }) { writes in
                try await writes.updateProjects([change], known: known) { updated = $0.first }
            }
            return updated
        }
        // By id, the write itself is the one request; a name is looked up while the values are checked.
        let target = target
        let isID = ProjectAPIClient.looksLikeRecordID(target) && !mode.dryRun
        async let checked = check(session)
        async let named = isID ? nil : session.namingForWrites().resolve(target)
        let write = try await checked
        var updated: Project?
        let wroteByID = try await session.writtenByID([target], allowed: isID) { ids in
            updated = try await apply(ProjectChange(id: ids[0], write: write))
        }
        if !wroteByID {
            let project: Project
            if let found = try await named {
                project = found
            } else {
                project = try await session.namingForWrites().resolve(target)
            }
            _ = try await session.confirmedLayout()
            let change = ProjectChange(id: project.id, write: write)
            if mode.dryRun { return .planned(client.plannedUpdates([change])) }
            updated = try await apply(change, known: [project]) ?? project
        }
        return .updated(updated, write: write)
    }
}

extension Update {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
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

/// What `update` came to: the request a dry run would send, or the project as it now is (nil when Airtable's answer
/// named none) with what was written.
package enum Updated: Sendable {
    case planned([PlannedRequest])
    case updated(Project?, write: ProjectWrite)
}
