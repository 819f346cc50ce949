import TrackerAPI
import TrackerModel

/// `tracker add`: creates one project and prints its id; with `--if-absent`, only when no project has the name.
package struct Add: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "add", summary: "Create a project and print its id.",
        usage: [
            "tracker add --name NAME --due DATE [--kickoff DATE] [--category NAME]",
            "            [--lead EMAIL] [--team EMAIL]... [--client NAME|ID]...",
            "            [--notes TEXT | --notes-file PATH|-] [--complete] [--set FIELD=VALUE]...",
            "            [--if-absent] [--dry-run] [--json] [-q]",
        ],
        flags: CommandSpec.fieldFlags + [
            FlagSpec(name: "--complete", help: "mark the project complete"),
            FlagSpec(
                name: "--if-absent",
                help:
                    "if a project with exactly this name exists, print its id and create nothing (across machines only with the team's Redis)"
            ),
        ] + CommandSpec.writeFlags,
        examples: [
            "tracker add --name \"Spring campaign\" --due 2026-12-01",
            "id=$(tracker add --name \"Logo refresh\" --due +2w --lead ana@example.com)",
            "make-notes | tracker add --name \"Q1 audit\" --due +2w --notes-file -",
            "tracker add -q --if-absent --name \"Weekly review\" --due friday",
            "tracker add --name \"Site refresh\" --due +3w --set Budget=12000",
        ],
        notes: [
            "--name and --due are required (--due only when the base has a due date field). \(CommandSpec.dateNote)",
            "Categories, clients and people are checked against the base first; nothing is created by a typo.",
            "With --if-absent it is safe to repeat, e.g. from cron: on one machine always, across machines only when",
            "each names the team's Redis (\"redis\" in the secrets file, or TRACKER_REDIS_URL), whose lock it takes",
            "to create; an empty TRACKER_REDIS_URL= runs one command without it, on this machine alone.",
        ])

    /// The project's fields; the name is always there.
    package var input: ProjectInput
    package var ifAbsent = false
    package var mode = WriteMode()

    package var name: String { input.name ?? "" }

    /// Each value given.
    package init(input: ProjectInput, ifAbsent: Bool = false, mode: WriteMode = WriteMode()) {
        self.input = input
        self.ifAbsent = ifAbsent
        self.mode = mode
    }

    // Values only the schema can check (a choice, a person, a client, the base's own fields) wait for it; a project of
    // a name and dates goes out beside it, cold.
    package var opening: SessionOpening { SessionOpening(readingBeside: !input.needsSchema && !mode.dryRun) }

    /// Creates one project, exactly once; with `--if-absent`, only when no project has the name.
    package func run(in session: Session) async throws -> AddOutcome {
        let notes = try session.readNotes(input.notes, command: "add")
        let input = input
        func check(_ session: Session) async throws -> ProjectWrite {
            if session.layout.fields[.due] != nil && input.due == nil {
                throw AppError.usage("add needs --due DATE", command: "add")
            }
            return try await session.checker(command: "add").write(for: input, notes: notes)
        }
        let write = try await check(session)
        let client = session.client
        if mode.dryRun { return .planned(client.plannedCreate(write)) }
        let (name, due) = (self.name, input.due)
        return .done(
            try await session.create(
                ifAbsent: ifAbsent, lockName: [name], for: "add", doing: "adding \"\(name)\"",
                find: { try await client.projects(named: name).get().first }, recheck: { _ = try await check($0) },
                send: { try await $0.project(write, name: name, due: due) }))
    }
}

extension Add {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        let input = try scanned.projectInput(today: today)
        guard input.name != nil else { throw AppError.usage("add needs --name NAME", command: "add") }
        self.init(input: input, ifAbsent: scanned.has("--if-absent"), mode: try scanned.writeMode())
    }
}

/// What `add` came to: the request a dry run would send, or the project created (or found, with `--if-absent`).
package enum AddOutcome: Sendable {
    case planned(PlannedRequest)
    case done(Creation<Project>)
}
