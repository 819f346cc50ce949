import TrackerAPI
import TrackerModel

/// `tracker tasks [PROJECT]`: the tasks of the Tasks table, grouped under their projects.
package struct Tasks: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "tasks", facts: [.readsTeamCopy], summary: "List tasks: what is left to do, by project.",
        usage: [
            "tracker tasks [PROJECT] [--mine | --assignee EMAIL|NAME|me] [--open | --done | --all] [--search TEXT]",
            "              [--limit N] [--format table|tsv|csv|json|ndjson] [--json] [--columns COL[,COL]...]",
        ],
        positional: "PROJECT", arguments: .projects,
        flags: [
            FlagSpec(name: "--mine", help: "only tasks assigned to you (the token's user)"),
            FlagSpec(name: "--assignee", value: "EMAIL|NAME|me", help: "only tasks assigned to this person"),
            FlagSpec(name: "--open", help: "only tasks not yet done (the default)"),
            FlagSpec(name: "--done", help: "only tasks that are done"),
            FlagSpec(name: "--all", help: "open and done tasks"),
            FlagSpec(name: "--search", value: "TEXT", help: "only tasks whose name or notes contain TEXT (any case)"),
            FlagSpec(name: "--limit", value: "N", minimum: 1, help: "at most N tasks"),
            FlagSpec(
                name: "--format", value: "FORMAT", choices: ListFormat.allCases.map(\.rawValue),
                help: "table on a terminal, tsv when piped; or csv, json, ndjson"),
            FlagSpec(name: "--json", help: "the same as --format json: one JSON array of task objects"),
            FlagSpec(
                name: "--columns", value: "COLS", choices: TaskColumn.allCases.map(\.rawValue), checksChoices: false,
                help: "the TSV and CSV columns, in order, e.g. name,project-name,estimate"),
        ],
        examples: [
            "tracker tasks", "tracker tasks \"Coffee packaging\" --all", "tracker tasks --mine",
            "tracker tasks --assignee ana@example.com --format csv > ana.csv",
            "tracker tasks --json | jq -r '.[] | select(.project.status==\"overdue\").name'",
        ],
        notes: [
            "Open tasks by default, ordered by their project's due date. Filters run on Airtable; a project's tasks",
            "are read by the ids its Tasks field lists. Piped output is tab-separated, no header: id name",
            "project-name due status assignee-name estimate (due and status are the project's). Columns:",
            TaskColumn.allCases.map(\.rawValue).joined(separator: " ") + ".",
        ])

    package var project: String? = nil
    package var filters = TaskFilters()
    package var limit: Int? = nil
    package var format: ListFormat? = nil
    package var columns: [TaskColumn] = TaskColumn.defaults

    // Cold, the listing goes out beside the schema read, with the Tasks table the secrets file assumes.
    package var opening: SessionOpening { .besideSchema }

    /// The tasks the filters pick (of the project named, when one is), with the projects they belong to.
    package func run(in session: Session) async throws -> TaskRows {
        let layout = try session.taskLayout()
        var project: Project?
        if let target = self.project {
            project = try await ProjectNaming(client: session.client, forgivesWords: true).resolve(target)
        }
        return try await session.readTasks(filters, of: project, tasks: layout, limit: limit)
    }
}

extension Tasks {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals(allowed: 1)
        project = scanned.positionals.first
        let states = ["--open", "--done", "--all"].filter(scanned.has)
        guard states.count <= 1 else {
            throw AppError.usage("\(states[0]) and \(states[1]) cannot be used together", command: "tasks")
        }
        filters.state = states.first.flatMap { TaskFilters.State(rawValue: String($0.dropFirst(2))) } ?? .open
        try scanned.rejectTogether("--mine", "--assignee")
        filters.assignee = scanned.has("--mine") ? "me" : try scanned.nonEmpty("--assignee")
        filters.search = try scanned.nonEmpty("--search")
        limit = try scanned.wholeNumber("--limit")
        format = try scanned.formatName().flatMap(ListFormat.init(rawValue:))
        if let text = scanned.last("--columns") {
            columns = try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
                guard let column = TaskColumn(rawValue: item.trimmingWhitespace().lowercased()) else {
                    throw AppError.usage(
                        "--columns has no column \"\(item)\"; it takes \(TaskColumn.allCases.map(\.rawValue).joined(separator: " "))",
                        command: "tasks")
                }
                return column
            }
        }
    }
}
