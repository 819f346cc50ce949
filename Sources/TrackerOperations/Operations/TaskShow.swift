import TrackerAPI
import TrackerModel

/// `tracker task show TASK`: one task, its project, who does it and what is left.
package struct TaskShow: Operation, Equatable {
    package static let flags = ["--project", "--json"]

    package var task: String
    package var project: String?
    package var json = false

    package init(_ scanned: ScannedArguments) throws {
        guard scanned.positionals.count == 1 else {
            throw AppError.usage(
                "task show takes one task: tracker task show TASK [--project PROJECT]", command: "task")
        }
        task = scanned.positionals[0]
        project = try scanned.nonEmpty("--project")
        json = scanned.has("--json")
    }

    package var opening: SessionOpening { .schemaFirst }

    /// The task (a name holding every word typed is taken, as for reads) with its project.
    package func run(in session: Session) async throws -> TaskRows {
        let layout = try session.taskLayout()
        let task = try await session.taskNaming(layout, project: project, reading: true).resolve(task)
        return try await session.taskRows([task])
    }
}
