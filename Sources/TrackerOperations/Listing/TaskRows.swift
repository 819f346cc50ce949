import TrackerModel

/// Tasks with the projects they belong to, in the order `tasks` shows them: by their project's due date (soonest
/// first, tasks without a project last), then the project's name, then the task's name.
package struct TaskRows {
    package var tasks: [ProjectTask]
    /// The projects the tasks link to, by id (those tracker could read).
    package var projects: [String: Project]
    package var today: CalendarDate

    /// The rows of `tasks` in their order (their project's due date, name and id, then their own name and id); the
    /// first `limit` of them when given.
    package init(_ tasks: [ProjectTask], projects: [String: Project], today: CalendarDate, limit: Int? = nil) {
        self.projects = projects
        self.today = today
        if let limit, limit < tasks.count / 4 {
            self.tasks = Self.first(limit, of: tasks, in: projects)
            return
        }
        let order = Self.ranked(tasks, in: projects)
        self.tasks = order.prefix(limit ?? order.count).map { tasks[$0] }
    }

    /// The indices of `tasks` in their order. The projects are ranked once (due date, name, id), so sorting tasks
    /// compares a number before any text: a listing may hold 100,000 tasks and 50,000 projects. A project no task
    /// names only ranks among the others.
    private static func ranked(_ tasks: [ProjectTask], in projects: [String: Project]) -> [Int] {
        let ranked = projects.values.map {
            (id: $0.id, due: $0.due?.dayNumber ?? Int.max, name: ($0.name ?? "").lowercased())
        }.sorted { ($0.due, $0.name, $0.id) < ($1.due, $1.name, $1.id) }
        var rank: [String: Int] = [:]
        rank.reserveCapacity(ranked.count)
        for (position, project) in ranked.enumerated() { rank[project.id] = position }
        let keys = tasks.map { task in
            (rank: task.project.flatMap { rank[$0] } ?? Int.max, name: (task.name ?? "").lowercased(), id: task.id)
        }
        return tasks.indices.sorted { a, b in
            let (x, y) = (keys[a], keys[b])
            if x.rank != y.rank { return x.rank < y.rank }
            if x.name != y.name { return x.name < y.name }
            return x.id < y.id
        }
    }

    /// The first `count` tasks in their order, in one pass that keeps the best so far, most of them settled on their
    /// project's due date alone (one number each: no text lowered, no sort of every project): a listing of 100,000
    /// tasks cut to ten sorts ten.
    private static func first(_ count: Int, of tasks: [ProjectTask], in projects: [String: Project]) -> [ProjectTask] {
        var dueOf: [String: Int] = [:]
        dueOf.reserveCapacity(projects.count)
        // A project without a due date goes after every dated one, a task with no project known after them all.
        for (id, project) in projects { dueOf[id] = project.due?.dayNumber ?? Int.max - 1 }
        let dues = tasks.map { task in task.project.flatMap { dueOf[$0] } ?? Int.max }
        let picked = first(count, of: tasks.indices) { a, b in
            dues[a] != dues[b] ? dues[a] < dues[b] : precedes(tasks[a], tasks[b], in: projects)
        }
        return picked.map { tasks[$0] }
    }

    /// Whether `a` comes before `b` when their dues are equal (so either both projects are known or neither is): by
    /// their projects' names and ids, then by their own names and ids, as `ranked` sorts them.
    private static func precedes(_ a: ProjectTask, _ b: ProjectTask, in projects: [String: Project]) -> Bool {
        if let p = a.project.flatMap({ projects[$0] }), let q = b.project.flatMap({ projects[$0] }), p.id != q.id {
            let (m, n) = ((p.name ?? "").lowercased(), (q.name ?? "").lowercased())
            return m != n ? m < n : p.id < q.id
        }
        let (m, n) = ((a.name ?? "").lowercased(), (b.name ?? "").lowercased())
        return m != n ? m < n : a.id < b.id
    }

    /// The first `count` of `indices` by `before`, in order, keeping the best so far.
    static func first(_ count: Int, of indices: Range<Int>, by before: (Int, Int) -> Bool) -> [Int] {
        guard count > 0 else { return [] }
        var best: [Int] = []
        best.reserveCapacity(min(count, indices.count) + 1)
        for index in indices {
            if best.count == count, !before(index, best[best.count - 1]) { continue }
            var (low, high) = (0, best.count)
            while low < high {
                let middle = (low + high) / 2
                if before(index, best[middle]) { high = middle } else { low = middle + 1 }
            }
            best.insert(index, at: low)
            if best.count > count { best.removeLast() }
        }
        return best
    }

    /// The project a task is shown under, with what the JSON object and the rows say of it.
    package func project(of task: ProjectTask) -> Project? { task.project.flatMap { projects[$0] } }

    /// `7 tasks, 12.5 days estimated, 2 in overdue projects`.
    package var summary: String {
        guard !tasks.isEmpty else { return "No tasks." }
        let days = tasks.compactMap(\.estimate).reduce(0, +)
        let overdue = tasks.filter { project(of: $0)?.status(today: today) == .overdue }.count
        var parts = ["\(tasks.count) task\(tasks.count == 1 ? "" : "s")"]
        if days > 0 { parts.append("\(ProjectTask.days((days * 10).rounded() / 10)) days estimated") }
        if overdue > 0 { parts.append("\(overdue) in overdue projects") }
        return parts.joined(separator: ", ")
    }

    // MARK: - Formats

    /// The JSON object of one task, its project as read.
    package func json(_ task: ProjectTask) -> String {
        var json = JSONWriter(capacity: 512)
        write(task, to: &json)
        return json.text
    }

    /// The JSON object of one task, as a value.
    package func jsonValue(_ task: ProjectTask) -> JSONValue { JSONTree.build { write(task, to: &$0) } }

    /// One task's object, written to `json`.
    package func write<Sink: JSONSink>(_ task: ProjectTask, to json: inout Sink) {
        let project = project(of: task).map { ($0.name, $0.due, $0.status(today: today)) }
        task.writeJSON(project: project, to: &json)
    }

    /// One JSON array, written into one buffer.
    package var jsonArray: String {
        guard !tasks.isEmpty else { return "[]\n" }
        var json = JSONWriter(capacity: tasks.count * 400)
        json.raw("[\n")
        for (index, task) in tasks.enumerated() {
            if index > 0 { json.raw(",\n") }
            write(task, to: &json)
        }
        json.raw("\n]\n")
        return json.text
    }

    /// One object a line, written into one buffer.
    package var ndjson: String {
        var json = JSONWriter(capacity: tasks.count * 400)
        for task in tasks {
            write(task, to: &json)
            json.raw("\n")
        }
        return json.text
    }
}
