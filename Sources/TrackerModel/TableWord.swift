/// tracker's words for one table's fields (what the secrets file maps, `--clear` names and messages say), so the
/// rules written over a table's layout (`TableFields`, `TableSettings`) serve projects and tasks alike.
public protocol TableWord: RawRepresentable, CaseIterable, Hashable, Sendable
where RawValue == String, AllCases == [Self] {
    /// The word for the table's primary field, which a base always has.
    static var name: Self { get }
    /// The word for the field that says a record is done: a checkbox, or a select mapped in the secrets file.
    static var complete: Self { get }
    /// Where the secrets file maps these words, as messages quote it (`"fields"`).
    static var settingsKey: String { get }
    /// The word's place in `allCases`.
    var position: Int { get }
    /// The field's name in Airtable's Project tracker template.
    var templateName: String { get }
    /// The schema API types a field must have for tracker to read and write it as this word.
    var acceptedTypes: Set<String> { get }
    /// The flag that sets this word's field, for messages.
    var flag: String { get }
}

/// A field tracker reads or writes in "Design projects", by the word the secrets file and `--clear` use.
public enum ProjectWord: String, TableWord {
    case name, category, complete, kickoff, due, lead, team, client, notes

    public static let settingsKey = "\"fields\""

    public var position: Int {
        switch self {
        case .name: 0
        case .category: 1
        case .complete: 2
        case .kickoff: 3
        case .due: 4
        case .lead: 5
        case .team: 6
        case .client: 7
        case .notes: 8
        }
    }

    public var templateName: String {
        switch self {
        case .name: "Name"
        case .category: "Category"
        case .complete: "Complete"
        case .kickoff: "Kickoff date"
        case .due: "Due date"
        case .lead: "Project lead"
        case .team: "Project team"
        case .client: "Client"
        case .notes: "Notes"
        }
    }

    public var acceptedTypes: Set<String> {
        switch self {
        case .name: ["singleLineText", "multilineText", "email", "url", "phoneNumber"]
        case .category: ["singleSelect"]
        case .complete: ["checkbox", "singleSelect"]
        case .kickoff, .due: ["date"]
        case .lead: ["singleCollaborator"]
        case .team: ["multipleCollaborators"]
        case .client: ["multipleRecordLinks"]
        case .notes: ["multilineText", "richText", "singleLineText"]
        }
    }

    public var flag: String { self == .client ? "--client" : "--\(rawValue)" }
}

/// A field tracker reads or writes in the template's "Tasks" table (docs/airtable.md "The template"), by the word of
/// the secrets
/// file's `"tasks": {"fields": …}`.
public enum TaskWord: String, TableWord {
    case name, project, estimate, complete, assignee, notes

    public static let settingsKey = "\"tasks\".\"fields\""

    public var position: Int {
        switch self {
        case .name: 0
        case .project: 1
        case .estimate: 2
        case .complete: 3
        case .assignee: 4
        case .notes: 5
        }
    }

    public var templateName: String {
        switch self {
        case .name: "Name"
        case .project: "Design project"
        case .estimate: "Time estimate (days)"
        case .complete: "Completed"
        case .assignee: "Assignee"
        case .notes: "Notes"
        }
    }

    public var acceptedTypes: Set<String> {
        switch self {
        case .name: ["singleLineText", "multilineText", "email", "url", "phoneNumber"]
        case .project: ["multipleRecordLinks"]
        case .estimate: ["number"]
        case .complete: ["checkbox", "singleSelect"]
        case .assignee: ["singleCollaborator"]
        case .notes: ["multilineText", "richText", "singleLineText"]
        }
    }

    public var flag: String {
        switch self {
        case .project: "--move-to"
        default: "--\(rawValue)"
        }
    }
}
