import TrackerAPI
import TrackerModel

extension Runner {
    /// Which table holds the tasks and which of its fields tracker uses, as task commands will find them.
    func tasksCheck(_ settings: TasksSettings, table: String, schema: Result<BaseSchema?, AppError>) -> DoctorCheck {
        if case .absent = settings { return .skipped("tasks", "no Tasks table: the secrets file says \"tasks\": null") }
        guard case .success(let base?) = schema else {
            return .skipped("tasks", "tasks check: the token lacks schema.bases:read")
        }
        do {
            guard let tasks = try TaskLayout.resolve(settings, projects: base.table(table), schema: base) else {
                return .skipped(
                    "tasks", "the base has no Tasks table (none linked from the projects, none named \"Tasks\")")
            }
            let used = TaskWord.allCases.compactMap { word in tasks.fields[word].map { "\(word.rawValue) \"\($0)\"" } }
            var check = DoctorCheck(
                name: "tasks",
                detail: "Tasks table \"\(StandardErrorText.safe(tasks.name))\": " + used.joined(separator: ", "))
            let absent = TaskWord.allCases.filter { tasks.fields[$0] == nil }
            if !absent.isEmpty {
                check.notes.append(
                    "absent: " + absent.map { "\($0.rawValue) (\($0.templateName))" }.joined(separator: ", "))
            }
            if tasks.projectsLink == nil {
                check.notes.append(
                    "the projects have no link to it: a project's tasks are found by the tasks' own link")
            }
            return check
        } catch {
            return .failed("tasks", error as? AppError ?? .configuration("\(error)", hint: nil))
        }
    }
}
