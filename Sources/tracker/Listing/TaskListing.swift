import TrackerAPI
import TrackerModel

extension Runner {
    /// The Tasks table of `base`, or the configuration error (78) every task command gives without one.
    func taskLayout(_ base: Base) throws -> TaskLayout {
        try base.layout.requireTasks(base.client.access.tasks)
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
        let me = filters.needsMe ? try await base.knowledge.me() : nil
        let keep = filters.localMatch(me: me)
        var found: [ProjectTask]
        if let project, let ids = taskIDs(of: project, in: layout) {
            found = try await base.client.tasks(in: table, ids: ids, also: formula).get()
        } else {
            found = []
            try await base.client.listTasks(in: table, ListQuery(filterByFormula: formula)) { page in
                found += page.filter { task in project.map { task.projects.contains($0.id) } ?? true }
            }
        }
        rememberTaskNames(found, base: base)
        if let keep { found = found.filter(keep) }
        var projects: [String: Project] = [:]
        if let project { projects[project.id] = project }
        let wanted = found.compactMap(\.project).filter { projects[$0] == nil }
        for read in try await base.client.projects(ids: wanted).get() { projects[read.id] = read }
        var rows = TaskRows(found, projects: projects, today: today)
        if let limit, rows.tasks.count > limit { rows.tasks = Array(rows.tasks.prefix(limit)) }
        return rows
    }
}
