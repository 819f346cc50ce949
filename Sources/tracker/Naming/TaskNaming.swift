import TrackerAPI
import TrackerModel

/// How task commands find the task a user named (cli-spec.md "Naming a task"): a `rec…` id of the Tasks table, else
/// the exact name, else the one name that matches ignoring case; `within` narrows the search to one project's tasks
/// (names such as "Kickoff meeting" repeat across projects).
struct TaskNaming {
    var client: ProjectAPIClient
    var layout: TaskLayout
    /// The project `--project` named, whose tasks alone are searched.
    var within: Project?
    /// The ids of `within`'s tasks, from its Tasks field; nil when the projects have no link to the table.
    var withinIDs: [String]?

    /// The tasks `targets` name, found before anything is written; each task once. The projects they belong to are
    /// read to name them in an ambiguity.
    func resolve(all targets: [String]) async throws -> [ProjectTask] {
        var tasks: [ProjectTask] = []
        for target in targets {
            let task = try await resolve(target)
            if !tasks.contains(where: { $0.id == task.id }) { tasks.append(task) }
        }
        return tasks
    }

    func resolve(_ target: String) async throws -> ProjectTask {
        let table = layout.client
        let candidates: [ProjectTask]
        if let within, let ids = withinIDs {
            candidates = try await client.tasks(in: table, ids: ids).get()
        } else {
            let found = try await client.tasks(
                in: table, matching: Formula.any(Formula.idOrName(target, nameField: table.fields.name))
            ).get()
            candidates = within.map { project in found.filter { $0.projects.contains(project.id) } } ?? found
        }
        let matches = ProjectNaming.matches(of: target, in: candidates, id: \.id, name: \.name)
        switch matches.count {
        case 1: return matches[0]
        case 0: throw try await notFound(target)
        default:
            let projects = try await client.projects(ids: matches.compactMap(\.project)).get()
            let names = Dictionary(projects.map { ($0.id, $0.name ?? $0.id) }) { first, _ in first }
            throw AppError.ambiguous(
                name: target,
                candidates: matches.sorted { $0.createdTime < $1.createdTime }.map { task in
                    "\(task.id) (in \(task.project.map { names[$0] ?? $0 } ?? "no project"))"
                })
        }
    }

    private func notFound(_ target: String) async throws -> AppError {
        let place = within.map { " in \"\($0.name ?? $0.id)\"" } ?? ""
        let what =
            ProjectAPIClient.looksLikeRecordID(target)
            ? "no task\(place) has id or name \"\(target)\"" : "no task\(place) is named \"\(target)\""
        var resembling: [String] = []
        if let formula = ProjectAPIClient.resemblanceFormula(target, field: layout.fields.name) {
            resembling = try await client.tasks(in: layout.client, matching: formula, limit: 200).get().compactMap(
                \.name)
        }
        let close = ProjectNaming.closest(to: target, among: resembling.filter { $0 != target })
        return .notFound(what, hint: Suggestion.question(close) ?? "Run 'tracker tasks --all' to see names and ids.")
    }
}
