import TrackerAPI
import TrackerModel

/// How task commands find the task a user named (docs/contract.md "Naming a task"): a `rec…` id of the Tasks table,
/// else
/// the exact name, else the one name that matches ignoring case; `within` narrows the search to one project's tasks
/// (names such as "Kickoff meeting" repeat across projects).
package struct TaskNaming {
    /// Airtable, for tasks matched by formula.
    package var client: ProjectAPIClient
    /// The session's reader, for tasks and projects read by id.
    package var reader: any RecordReader
    package var layout: TaskLayout
    /// The project `--project` named, whose tasks alone are searched.
    package var within: Project?
    /// The ids of `within`'s tasks, from its Tasks field; nil when the projects have no link to the table.
    package var withinIDs: [String]?
    /// Commands that only read take the one task whose name holds every word typed; a write asks (`confirmsGuess`,
    /// on a terminal) or is 66 naming it, as for projects.
    package var forgivesWords = false
    package var confirmsGuess: (@Sendable (String) -> Bool)? = nil

    /// The tasks `targets` name, found before anything is written; each task once. The projects they belong to are
    /// read to name them in an ambiguity.
    package func resolve(all targets: [String]) async throws -> [ProjectTask] {
        var tasks: [ProjectTask] = []
        for target in targets {
            let task = try await resolve(target)
            if !tasks.contains(where: { $0.id == task.id }) { tasks.append(task) }
        }
        return tasks
    }

    package func resolve(_ target: String) async throws -> ProjectTask {
        let table = layout.client
        let candidates: [ProjectTask]
        if within != nil, let ids = withinIDs {
            candidates = try await reader.tasks(in: table, ids: ids).get()
        } else {
            let found = try await client.tasks(
                in: table, matching: Formula.any(Formula.idOrName(target, nameField: table.fields.name))
            ).get()
            candidates = within.map { project in found.filter { $0.projects.contains(project.id) } } ?? found
        }
        let matches = ProjectNaming.matches(of: target, in: candidates, id: \.id, name: \.name)
        switch matches.count {
        case 1: return matches[0]
        case 0:
            if forgivesWords || confirmsGuess != nil,
                let guessed = try await holdingEveryWord(of: target, in: candidates)
            {
                if forgivesWords || confirmsGuess?(guessed.name ?? guessed.id) == true { return guessed }
                throw notFound(target, place: within, resembling: [guessed.name ?? guessed.id])
            }
            throw try await notFound(target)
        default:
            let projects = try await reader.projects(ids: matches.compactMap(\.project)).get()
            let names = Dictionary(projects.map { ($0.id, $0.name ?? $0.id) }) { first, _ in first }
            throw AppError.ambiguous(
                name: target,
                candidates: matches.sorted { $0.createdTime < $1.createdTime }.map { task in
                    "\(task.id) (in \(task.project.map { names[$0] ?? $0 } ?? "no project"))"
                })
        }
    }

    /// The one task whose name holds every word of `target` (any case), among `within`'s tasks when narrowed (those
    /// already read), else found by a formula on Airtable; nil for none or several.
    private func holdingEveryWord(of target: String, in candidates: [ProjectTask]) async throws -> ProjectTask? {
        let words = target.lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !words.isEmpty else { return nil }
        func holds(_ task: ProjectTask) -> Bool {
            let lowered = (task.name ?? "").lowercased()
            return words.allSatisfy { lowered.contains($0) }
        }
        var found: [ProjectTask]
        if within != nil && withinIDs != nil {
            found = candidates.filter(holds)
        } else {
            let name = "LOWER(\(Formula.field(layout.fields.name)))"
            let formula = Formula.all(words.map { "FIND(\(Formula.literal($0)), \(name))" })
            found = try await client.tasks(in: layout.client, matching: formula, limit: 20).get().filter(holds)
            if let within { found = found.filter { $0.projects.contains(within.id) } }
        }
        return found.count == 1 ? found[0] : nil
    }

    private func notFound(_ target: String, place project: Project?, resembling: [String]) -> AppError {
        let place = project.map { " in \"\($0.name ?? $0.id)\"" } ?? ""
        let close = ProjectNaming.closest(to: target, among: resembling.filter { $0 != target })
        return .notFound(
            "no task\(place) is named \"\(target)\"",
            hint: Suggestion.question(close) ?? "Run 'tracker tasks --all' to see names and ids.")
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
    /// Each stored value given.
    package init(
        client: ProjectAPIClient, reader: any RecordReader, layout: TaskLayout, within: Project? = nil,
        withinIDs: [String]? = nil,
        forgivesWords: Bool = false, confirmsGuess: (@Sendable (String) -> Bool)? = nil
    ) {
        self.forgivesWords = forgivesWords
        self.client = client
        self.reader = reader
        self.layout = layout
        self.within = within
        self.withinIDs = withinIDs
        self.confirmsGuess = confirmsGuess
    }
}
