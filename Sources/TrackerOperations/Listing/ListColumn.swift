import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// A column of `list`'s table, TSV and CSV (docs/contract.md "Output (stable)"): one of tracker's, or a field of the
/// base.
package enum ListColumn: Hashable, Sendable {
    case id, name, due, status, category
    case leadName
    case leadEmail
    case kickoff, team, clients, notes, complete, createdTime
    /// The project's tasks, done of all (`3/7`), and the estimates of the open ones (docs/contract.md "Tasks").
    case tasks, daysLeft
    /// One of the base's own fields, by its Airtable name.
    case field(String)

    /// tracker's own columns, in the order help lists them.
    package static let standard: [ListColumn] = [
        .id, .name, .due, .status, .category, .leadName, .leadEmail, .kickoff, .team, .clients, .notes, .complete,
        .createdTime, .tasks, .daysLeft,
    ]

    /// The columns when none are asked for: `id name due status category lead-name` (stable).
    package static let defaults: [ListColumn] = [.id, .name, .due, .status, .category, .leadName]

    /// One of tracker's columns by the name `--columns` takes (any case).
    package init?(standardName: String) {
        guard let column = Self.standard.first(where: { $0.rawValue.lowercased() == standardName.lowercased() }) else {
            return nil
        }
        self = column
    }

    /// The name `--columns` takes and the CSV header shows.
    package var rawValue: String {
        switch self {
        case .id: "id"
        case .name: "name"
        case .due: "due"
        case .status: "status"
        case .category: "category"
        case .leadName: "lead-name"
        case .leadEmail: "lead-email"
        case .kickoff: "kickoff"
        case .team: "team"
        case .clients: "clients"
        case .notes: "notes"
        case .complete: "complete"
        case .createdTime: "createdTime"
        case .tasks: "tasks"
        case .daysLeft: "days-left"
        case .field(let name): name
        }
    }

    /// The column's value for TSV and CSV: dates as YYYY-MM-DD, several people or clients separated by `;`, so
    /// that what `list` writes, `import` reads back.
    package func value(_ project: Project, today: CalendarDate) -> String {
        switch self {
        case .id: project.id
        case .name: project.name ?? ""
        case .due: project.due?.description ?? ""
        case .status: project.status(today: today).rawValue
        case .category: project.category ?? ""
        case .leadName: project.lead?.displayName ?? ""
        case .leadEmail: project.lead?.email ?? ""
        case .kickoff: project.kickoff?.description ?? ""
        case .team: project.team.map { $0.email ?? $0.displayName }.joined(separator: ";")
        case .clients: project.clients.joined(separator: ";")
        case .notes: project.notes ?? ""
        case .complete: project.isComplete ? "true" : "false"
        case .createdTime: project.createdTime
        case .tasks: project.taskProgress.map { "\($0.done)/\($0.total)" } ?? ""
        case .daysLeft: project.taskProgress.map { ProjectTask.days($0.daysLeft) } ?? ""
        case .field(let name):
            project.otherFields.first { $0.name == name }.map { FieldFormatter.plain($0.value) } ?? ""
        }
    }

    /// The table's heading.
    package var title: String {
        switch self {
        case .leadName: "LEAD"
        case .leadEmail: "LEAD EMAIL"
        case .createdTime: "CREATED"
        case .daysLeft: "DAYS LEFT"
        case .field(let name): name.uppercased()
        default: rawValue.uppercased()
        }
    }
}
