/// A column of `list`'s table, TSV and CSV (cli-spec.md `--columns`).
public enum ListColumn: String, Sendable, CaseIterable {
    case id, name, due, status, category
    case leadName = "lead-name"
    case leadEmail = "lead-email"
    case kickoff, team, clients, notes, complete, createdTime

    /// The columns when none are asked for: `id name due status category lead-name` (stable).
    public static let defaults: [ListColumn] = [.id, .name, .due, .status, .category, .leadName]

    /// The column's value for TSV and CSV: dates as YYYY-MM-DD, several people or clients separated by `;`, so
    /// that what `list` writes, `import` reads back.
    func value(_ project: Project, today: CalendarDate) -> String {
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
        }
    }

    /// The table's heading.
    var title: String {
        switch self {
        case .leadName: "LEAD"
        case .leadEmail: "LEAD EMAIL"
        case .createdTime: "CREATED"
        default: rawValue.uppercased()
        }
    }
}
