import TrackerAPI
import TrackerModel

/// `tracker status`: the one screen to start a day with, for the token's user (like `gh status`).
package struct Status: Operation, Equatable {
    package static let spec = CommandSpec(
        name: "status", facts: [.readsTeamCopy],
        summary: "What needs you today: your late and due projects, your open tasks, what is new.",
        usage: ["tracker status [--days N] [--json]"],
        flags: [
            FlagSpec(
                name: "--days", value: "N", minimum: 1,
                help: "due within N days (\(DueWithin.words("N"))), new in the last N; default 7"),
            FlagSpec(name: "--json", help: "one JSON object: date, user, projects, tasks, new"),
        ],
        examples: [
            "tracker status", "tracker status --days 3",
            "0 8 * * 1-5  tracker status     # in a crontab: mailed each weekday morning",
        ],
        notes: [
            "Your projects are those you lead or are in the team of, matched by your user id; your tasks those",
            "assigned to you. Two listings filtered on Airtable, read side by side. Piped, plain text within 80",
            "columns for cron's mail; nothing needing you is one line saying so.",
        ])

    package var days = 7
    package var json = false

    // Cold: the schema, who the token is and both listings go out at once; the tasks' projects follow by id.
    package var opening: SessionOpening { .besideSchema }

    /// What needs the token's user: their projects due within the days, their open tasks, and what was put on them
    /// in those days.
    package func run(in session: Session) async throws -> StatusReport {
        let today = session.today
        let fields = session.layout.fields
        let since = ProjectDigest.start(
            of: CalendarDate(dayNumber: today.dayNumber - days + 1), in: session.surroundings.timeZone)
        let last = DueWithin(days: days, from: today).lastDay
        let projects = Formula.statusSelection(since: since, last: last, fields: fields)
        let reader = session.reader
        async let me = session.knowledge.me()
        async let projectsRead = reader.collect { onPage in
            try await reader.listProjects(.picking(projects), onPage: onPage)
        }
        let tasksLayout = session.layout.tasks
        async let tasksRead: Result<[ProjectTask], AppError>? = {
            guard let layout = tasksLayout else { return nil }
            let assigned = Formula.statusTaskSelection(since: since, fields: layout.fields)
            return await reader.collect { onPage in
                try await reader.listTasks(in: layout.client, .picking(assigned), onPage: onPage)
            }
        }()
        let user = try await me
        let found = try await projectsRead.get().filter { project in
            project.lead?.id == user || project.team.contains { $0.id == user }
        }
        _ = try await session.confirmedLayout()
        var tasks: [ProjectTask] = []
        if let read = await tasksRead { tasks = try read.get().filter { $0.assignee?.id == user } }
        var known = Dictionary(found.map { ($0.id, $0) }) { first, _ in first }
        let wanted = tasks.compactMap(\.project).filter { known[$0] == nil }
        for project in try await reader.projects(ids: wanted).get() { known[project.id] = project }
        let isNew = { (created: String) in created.prefix(19) >= since.prefix(19) }
        let person =
            found.lazy.flatMap { [$0.lead].compactMap { $0 } + $0.team }.first { $0.id == user }
            ?? tasks.lazy.compactMap(\.assignee).first { $0.id == user }
        return StatusReport(
            user: person ?? Collaborator(id: user),
            projects: found.filter { !$0.isComplete && $0.due.map { $0 <= last } == true }.sorted {
                ($0.due?.dayNumber ?? 0, $0.name ?? "") < ($1.due?.dayNumber ?? 0, $1.name ?? "")
            },
            tasks: TaskRows(tasks.filter { !$0.isComplete }, projects: known, today: today),
            newProjects: found.filter { isNew($0.createdTime) },
            newTasks: tasks.filter { isNew($0.createdTime) })
    }
}

extension Status {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        days = try scanned.wholeNumber("--days") ?? 7
        json = scanned.has("--json")
    }
}

/// What `status` found for one user.
package struct StatusReport: Sendable {
    package var user: Collaborator
    /// Open projects of the user's, overdue or due within the days, soonest first.
    package var projects: [Project]
    /// The user's open tasks, in their projects' due order.
    package var tasks: TaskRows
    /// What was put on the user in the last days: projects and tasks created then.
    package var newProjects: [Project]
    package var newTasks: [ProjectTask]

    package var isEmpty: Bool { projects.isEmpty && tasks.tasks.isEmpty && newProjects.isEmpty && newTasks.isEmpty }
    /// Each stored value given.
    package init(
        user: Collaborator, projects: [Project], tasks: TaskRows, newProjects: [Project], newTasks: [ProjectTask]
    ) {
        self.user = user
        self.projects = projects
        self.tasks = tasks
        self.newProjects = newProjects
        self.newTasks = newTasks
    }
}

extension StatusReport {
    /// The JSON `status --json` prints and mcp's status gives: the day, the user, their projects and open tasks, and
    /// what is new.
    package func jsonText(today: CalendarDate) -> String {
        var json = JSONWriter(capacity: 4096)
        write(today: today, to: &json)
        return json.text
    }

    /// The same object as a value.
    package func jsonValue(today: CalendarDate) -> JSONValue { JSONTree.build { write(today: today, to: &$0) } }

    private func write<Sink: JSONSink>(today: CalendarDate, to json: inout Sink) {
        func projects(_ list: [Project]) {
            json.beginArray()
            for project in list { project.writeJSON(today: today, to: &json) }
            json.endArray()
        }
        func tasks(_ list: [ProjectTask]) {
            json.beginArray()
            for task in list { self.tasks.write(task, to: &json) }
            json.endArray()
        }
        json.beginObject()
        json.key("date")
        json.string(today.description)
        json.key("user")
        json.beginObject()
        json.key("id")
        json.string(user.id ?? "")
        json.key("name")
        json.string(or: user.name)
        json.key("email")
        json.string(or: user.email)
        json.endObject()
        json.key("projects")
        projects(self.projects)
        json.key("tasks")
        tasks(self.tasks.tasks)
        json.key("new")
        json.beginObject()
        json.key("projects")
        projects(newProjects)
        json.key("tasks")
        tasks(newTasks)
        json.endObject()
        json.endObject()
    }
}
