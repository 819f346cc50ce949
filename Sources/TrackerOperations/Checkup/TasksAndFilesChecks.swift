import TrackerAPI
import TrackerModel

extension Doctor {
    /// Which table holds the tasks and which of its fields tracker uses, as task commands will find them.
    static func tasksCheck(_ settings: TasksSettings, table: String, schema: Result<BaseSchema?, AppError>)
        -> DoctorCheck
    {
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

    /// Which attachment field `attach` and `files` use, as they will pick it.
    static func filesCheck(_ images: FieldSettings.Setting?, table: String, schema: Result<BaseSchema?, AppError>)
        -> DoctorCheck
    {
        guard case .success(let base?) = schema, let projects = base.table(table) else {
            return .skipped("files", "files check: the token lacks schema.bases:read")
        }
        if case .absent? = images {
            return .skipped("files", "no attachment field: the secrets file says \"images\": null")
        }
        let attachments = projects.fields.filter { $0.type == "multipleAttachments" }.map(\.name)
        guard !attachments.isEmpty else { return .skipped("files", "the table has no attachment field") }
        do {
            let field = try AttachmentFieldChoice.pick(
                flag: nil, mapped: images, template: "Project images", table: projects, tableName: table,
                command: "doctor")
            return DoctorCheck(name: "files", detail: "attach and files use \"\(StandardErrorText.safe(field.name))\"")
        } catch {
            // Several attachment fields and none chosen: not an error until a command needs one.
            var check = DoctorCheck.skipped(
                "files",
                "\(attachments.count) attachment fields and none chosen: attach and files need --field NAME")
            check.notes.append(
                "To pick one for good, add to \"fields\" in the secrets file: \"images\": \"<one of "
                    + attachments.map { "\"\(StandardErrorText.safe($0))\"" }.joined(separator: ", ") + ">\"")
            return check
        }
    }
}
