import TrackerAPI
import TrackerModel

extension Runner {
    /// The Tasks table of `base`, or the configuration error (78) every task command gives without one.
    func taskLayout(_ base: Base) throws -> TaskLayout {
        try base.layout.requireTasks(base.client.access.tasks)
    }

    /// Cold, the Tasks table was read as the secrets file assumes it while the schema was on its way: once the schema
    /// has come, `SchemaInFlight.Contradicted` (the command then runs again, the schema first) unless it names the same
    /// table and fields.
    func confirmTasks(_ assumed: TaskLayout, _ base: Base) async throws {
        guard base.inFlight != nil else { return }
        let confirmed = try await base.confirmedLayout()
        guard let tasks = confirmed.tasks, tasks.name == assumed.name, tasks.fields == assumed.fields,
            tasks.projectsLink == assumed.projectsLink
        else {
            throw SchemaInFlight.Contradicted()
        }
    }

    /// What a task's project shows (its name, due date and status), when the schema says those fields exist; nil
    /// (every field) otherwise.
    func shownProjectFields(_ base: Base) -> [String]? {
        guard base.layout.table != nil, base.inFlight == nil else { return nil }
        let fields = base.layout.fields
        return [fields.name] + [ProjectWord.due, .complete].compactMap { fields[$0] }
    }

    /// The ids of the tasks a project lists in its link to the Tasks table; nil when the projects table has no such
    /// link (then only the tasks' own link can tell).
    func taskIDs(of project: Project, in tasks: TaskLayout) -> [String]? {
        guard let link = tasks.projectsLink else { return nil }
        let cell = project.otherFields.first { $0.name == link }?.value
        return cell?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The tasks `filters` pick (of `project` alone, when given) with the projects they belong to, filtered on
    /// Airtable: a project's tasks by the ids its Tasks field lists (a link is names inside a formula, so never by its
    /// name), every task by one listing; then their projects by id, side by side.
    func readTasks(
        _ filters: TaskFilters, of project: Project?, tasks layout: TaskLayout, base: Base, limit: Int? = nil
    ) async throws -> TaskRows {
        let table = layout.client
        let formula = Formula.tasksMatching(filters, fields: layout.fields)
        // Who the token is goes out beside the listing (and, cold, beside the schema read).
        async let asked: String? = filters.needsMe ? base.knowledge.me() : nil
        var found: [ProjectTask] = []
        do {
            if let project, let ids = taskIDs(of: project, in: layout) {
                found = try await base.client.tasks(in: table, ids: ids, also: formula).get()
            } else {
                try await base.client.listTasks(in: table, ListQuery(filterByFormula: formula)) { page in
                    found += page.filter { task in project.map { task.projects.contains($0.id) } ?? true }
                }
            }
        } catch {
            // Sent with the table the secrets file assumes: a failure may only mean the schema names another.
            try await confirmTasks(layout, base)
            throw error
        }
        try await confirmTasks(layout, base)
        let keep = filters.localMatch(me: try await asked)
        rememberTaskNames(found, base: base)
        if let keep { found = found.filter(keep) }
        var projects: [String: Project] = [:]
        if let project { projects[project.id] = project }
        let wanted = found.compactMap(\.project).filter { projects[$0] == nil }
        for read in try await base.client.projects(ids: wanted, fields: shownProjectFields(base)).get() {
            projects[read.id] = read
        }
        var rows = TaskRows(found, projects: projects, today: today)
        if let limit, rows.tasks.count > limit { rows.tasks = Array(rows.tasks.prefix(limit)) }
        return rows
    }
}
