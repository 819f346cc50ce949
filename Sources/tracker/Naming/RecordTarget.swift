import TrackerAPI
import TrackerModel
import TrackerOperations

/// What `open`, `comments` and `comment` act on: a project by id or name, or a task (`--task TASK`, narrowed by
/// `--project PROJECT`), as docs/contract.md "Tasks" says.
enum RecordTarget: Equatable, Sendable {
    case project(String)
    case task(String, project: String?)

    /// The flags that name a task in place of a project.
    static let flags = [
        FlagSpec(name: "--task", value: "TASK", help: "a task, by id or name, in place of a project"),
        FlagSpec(name: "--project", value: "PROJECT", help: "with --task: look among this project's tasks only"),
    ]
}

extension ScannedArguments {
    /// The project named first on the line, or the task `--task` names.
    func recordTarget(allowing extra: Int = 0) throws -> RecordTarget {
        let name = command?.name ?? ""
        if let task = try nonEmpty("--task") {
            guard positionals.count <= extra else {
                throw AppError.usage("\(name) takes a project or --task TASK, not both", command: name)
            }
            return .task(task, project: try nonEmpty("--project"))
        }
        if has("--project") { throw AppError.usage("--project narrows --task TASK; give the task too", command: name) }
        return .project(try projectTarget())
    }
}

/// The record a target named: its id, its table's route (nil: the projects'), the table's id when known, its name.
struct FoundRecord: Sendable {
    var id: String
    var route: String?
    var tableID: String?
    var name: String
    /// The project as the lookup read it, every cell included (what `ProjectNaming` returns), when it was looked up.
    var project: Project? = nil
}

extension Runner {
    /// Finds what `target` names, by the naming rule of its table; `forgiving` for commands that only read.
    func find(_ target: RecordTarget, base: Session, forgiving: Bool) async throws -> FoundRecord {
        switch target {
        case .project(let typed):
            let naming =
                forgiving ? ProjectNaming(client: base.client, forgivesWords: true) : namingForWrites(base.client)
            let project = try await naming.resolve(typed)
            let layout = try await base.confirmedLayout()
            return FoundRecord(
                id: project.id, route: nil, tableID: layout.table?.id, name: project.name ?? project.id,
                project: project)
        case .task(let typed, let project):
            var confirmed = base
            confirmed.layout = try await base.confirmedLayout()
            let layout = try taskLayout(confirmed)
            let task = try await taskNaming(confirmed, layout, project: project, reading: forgiving).resolve(typed)
            return FoundRecord(id: task.id, route: layout.route, tableID: layout.table?.id, name: task.name ?? task.id)
        }
    }
}
