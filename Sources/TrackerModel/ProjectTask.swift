/// One row of the template's "Tasks" table: the work inside a project.
///
/// Named `ProjectTask`, not `Task`: a model type called `Task` would shadow Swift's own `Task` in every module that
/// imports the model.
public struct ProjectTask: Equatable, Sendable {
    public var id: String
    public var createdTime: String
    public var name: String?
    /// Every project the task links to, in the order Airtable keeps them; the first is its project.
    public var projects: [String]
    public var isComplete: Bool
    /// Days, as the Time estimate field holds them.
    public var estimate: Double?
    public var assignee: Collaborator?
    public var notes: String?
    /// The record's other fields, in the order Airtable sent them.
    public var otherFields: [FieldValue]

    public init(
        id: String, createdTime: String, name: String? = nil, projects: [String] = [], isComplete: Bool = false,
        estimate: Double? = nil, assignee: Collaborator? = nil, notes: String? = nil, otherFields: [FieldValue] = []
    ) {
        self.id = id
        self.createdTime = createdTime
        self.name = name
        self.projects = projects
        self.isComplete = isComplete
        self.estimate = estimate
        self.assignee = assignee
        self.notes = notes
        self.otherFields = otherFields
    }

    /// The project the task belongs to: the first it links to.
    public var project: String? { projects.first }
}

/// Where the base keeps its tasks, as the secrets file's `"tasks"` says (docs/contract.md "Tasks").
public enum TasksSettings: Equatable, Sendable {
    /// `"tasks": null`: the base has no Tasks table; every task command is a configuration error.
    case absent
    /// The table (nil: the one the projects' Tasks field links to, else "Tasks") and what its fields are.
    case table(String?, TaskFieldSettings)

    /// The template's: found through the projects' link, its fields by the template's names.
    public static let template = TasksSettings.table(nil, .template)
}

/// How far a project's tasks are: `3 of 7 done, 4.5 days left` (the estimates of the open ones).
public struct TaskProgress: Equatable, Sendable {
    public var done: Int
    public var total: Int
    public var daysLeft: Double

    public init(_ tasks: [ProjectTask]) {
        done = tasks.filter(\.isComplete).count
        total = tasks.count
        // Rounded to a tenth: sums of 0.1 steps drift in binary.
        daysLeft = (tasks.filter { !$0.isComplete }.compactMap(\.estimate).reduce(0, +) * 10).rounded() / 10
    }

    /// `3 of 7 done, 4.5 days left`.
    public var text: String {
        "\(done) of \(total) done, \(ProjectTask.days(daysLeft)) day\(daysLeft == 1 ? "" : "s") left"
    }
}
