/// The columns of `tasks` in TSV and CSV.
package enum TaskColumn: String, CaseIterable, Sendable {
    case id, name
    case projectName = "project-name"
    case projectID = "project-id"
    case due, status
    case assigneeName = "assignee-name"
    case assigneeEmail = "assignee-email"
    case estimate, complete, notes, createdTime

    /// docs/contract.md: `id  name  project-name  due  status  assignee-name  estimate`.
    package static let defaults: [TaskColumn] = [.id, .name, .projectName, .due, .status, .assigneeName, .estimate]
}
