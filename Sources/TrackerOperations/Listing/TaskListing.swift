import TrackerAPI
import TrackerModel

extension Session {
    /// The Tasks table of `base`, or the configuration error (78) every task command gives without one.
    package func taskLayout() throws -> TaskLayout {
        try self.layout.requireTasks(self.client.access.tasks)
    }

    /// Cold, the Tasks table was read as the secrets file assumes it while the schema was on its way: once the schema
    /// has come, `SchemaInFlight.Contradicted` (the command then runs again, the schema first) unless it names the same
    /// table and fields.
    package func confirmTasks(_ assumed: TaskLayout) async throws {
        guard self.inFlight != nil else { return }
        let confirmed = try await self.confirmedLayout()
        guard let tasks = confirmed.tasks, tasks.name == assumed.name, tasks.fields == assumed.fields,
            tasks.projectsLink == assumed.projectsLink
        else {
            throw SchemaInFlight.Contradicted()
        }
    }

    /// The tasks of every project by project id, read in one listing of the Tasks table (only the fields that say
    /// whose a task is, whether it is done and its estimate), started now to go beside the projects' listing.
    package func taskProgressRead(_ layout: TaskLayout, withAssignees: Bool = false) -> Task<
        [String: [ProjectTask]], Error
    > {
        let words: [TaskWord] = [.project, .complete, .estimate] + (withAssignees ? [.assignee] : [])
        let fields = layout.table == nil ? nil : [layout.fields.name] + words.compactMap { layout.fields[$0] }
        let reader = self.reader
        return Task {
            var byProject: [String: [ProjectTask]] = [:]
            try await reader.listTasks(in: layout.client, ListQuery(fields: fields)) { page in
                for task in page { for project in task.projects { byProject[project, default: []].append(task) } }
            }
            return byProject
        }
    }

    /// `tasks` with every project they link to, read by id: what a command prints after it found or wrote them.
    package func taskRows(_ tasks: [ProjectTask]) async throws -> TaskRows {
        let projects = try await self.reader.projects(ids: tasks.flatMap(\.projects)).get()
        return TaskRows(tasks, projects: Dictionary(projects.map { ($0.id, $0) }) { first, _ in first }, today: today)
    }

    /// What a task's project shows (its name, due date and status), when the schema says those fields exist; nil
    /// (every field) otherwise.
    package func shownProjectFields() -> [String]? {
        guard self.layout.table != nil, self.inFlight == nil else { return nil }
        let fields = self.layout.fields
        return [fields.name] + [ProjectWord.due, .complete].compactMap { fields[$0] }
    }

    /// The ids of the tasks a project lists in its link to the Tasks table; nil when the projects table has no such
    /// link (then only the tasks' own link can tell).
    package func taskIDs(of project: Project, in tasks: TaskLayout) -> [String]? {
        guard let link = tasks.projectsLink else { return nil }
        let cell = project.otherFields.first { $0.name == link }?.value
        return cell?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The tasks `filters` pick (of `project` alone, when given) with the projects they belong to, filtered on
    /// Airtable: a project's tasks by the ids its Tasks field lists (a link is names inside a formula, so never by its
    /// name), every task by one listing; then their projects by id, side by side.
    package func readTasks(
        _ filters: TaskFilters, of project: Project?, tasks layout: TaskLayout, limit: Int? = nil
    ) async throws -> TaskRows {
        let table = layout.client
        let selection = Formula.taskSelection(filters, fields: layout.fields)
        // Who the token is goes out beside the listing (and, cold, beside the schema read).
        async let asked: String? = filters.needsMe ? self.knowledge.me() : nil
        var found: [ProjectTask] = []
        // With no person to match here, the projects of each page are asked for while the next pages arrive, a
        // hundred ids a request, instead of after the whole listing.
        let projectReads = ProjectReads(
            reader: self.reader, fields: self.shownProjectFields(), known: project.map { [$0.id] } ?? [])
        do {
            if let project, let ids = taskIDs(of: project, in: layout) {
                found = try await self.reader.tasks(in: table, ids: ids, also: selection).get()
            } else {
                try await self.reader.listTasks(in: table, .picking(selection)) { page in
                    let kept = project.map { project in page.filter { $0.projects.contains(project.id) } } ?? page
                    found += kept
                    if filters.assignee == nil { projectReads.ask(for: kept.compactMap(\.project), all: false) }
                }
            }
        } catch {
            // Sent with the table the secrets file assumes: a failure may only mean the schema names another.
            try await self.confirmTasks(layout)
            throw error
        }
        try await self.confirmTasks(layout)
        let keep = filters.localMatch(me: try await asked)
        self.rememberTaskNames(found)
        if let keep { found = found.filter(keep) }
        // A person by name is one user: two collaborators of that name are not both meant (matched by id, not name).
        if let wanted = filters.assignee, !wanted.contains("@"), !filters.needsMe {
            var people: [String: Collaborator] = [:]
            for task in found { if let person = task.assignee { people[person.id ?? person.email ?? ""] = person } }
            if people.count > 1 {
                let listed = people.values.map { $0.email ?? $0.id ?? "?" }.sorted().joined(separator: ", ")
                throw AppError.usage(
                    "\(people.count) collaborators are named \"\(wanted)\": \(listed); give one email", command: "tasks"
                )
            }
        }
        projectReads.ask(for: found.compactMap(\.project), all: true)
        var projects = try await projectReads.read()
        if let project { projects[project.id] = project }
        return TaskRows(found, projects: projects, today: today, limit: limit)
    }
}

/// Projects read by id as their ids become known, a hundred a request (a page's worth), the requests under way while
/// the caller goes on; `read` gathers them.
package final class ProjectReads: @unchecked Sendable {
    private let reader: any RecordReader
    private let fields: [String]?
    private var asked: Set<String>
    private var pending: [String] = []
    private var reads: [Task<[Project], Error>] = []

    package init(reader: any RecordReader, fields: [String]?, known: Set<String>) {
        self.reader = reader
        self.fields = fields
        asked = known
    }

    /// Queues the ids not asked for yet; sends every full hundred, and with `all` the rest too.
    package func ask(for ids: [String], all: Bool) {
        for id in ids where asked.insert(id).inserted { pending.append(id) }
        while pending.count >= 100 || (all && !pending.isEmpty) {
            let chunk = Array(pending.prefix(100))
            pending.removeFirst(chunk.count)
            let (reader, fields) = (reader, fields)
            reads.append(Task { try await reader.projects(ids: chunk, fields: fields).get() })
        }
    }

    /// Every project asked for, by id.
    package func read() async throws -> [String: Project] {
        var projects: [String: Project] = [:]
        for read in reads { for project in try await read.value { projects[project.id] = project } }
        return projects
    }

    deinit { for read in reads { read.cancel() } }
}
