import TrackerAPI
import TrackerModel

/// What `open`, `comments` and `comment` act on: a project by id or name, or a task (`--task TASK`, narrowed by
/// `--project PROJECT`), as docs/contract.md "Tasks" says.
package enum RecordTarget: Equatable, Sendable {
    case project(String)
    case task(String, project: String?)

    /// The flags that name a task in place of a project.
    package static let flags = [
        FlagSpec(name: "--task", value: "TASK", help: "a task, by id or name, in place of a project"),
        FlagSpec(name: "--project", value: "PROJECT", help: "with --task: look among this project's tasks only"),
    ]
}

extension ScannedArguments {
    /// The project named first on the line, or the task `--task` names.
    package func recordTarget(allowing extra: Int = 0) throws -> RecordTarget {
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
package struct FoundRecord: Sendable {
    package var id: String
    package var route: String?
    package var tableID: String?
    package var name: String
    /// The project as the lookup read it, every cell included (what `ProjectNaming` returns), when it was looked up.
    package var project: Project? = nil
}
