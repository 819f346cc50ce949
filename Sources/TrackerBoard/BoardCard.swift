import TrackerModel
import TrackerOperations

/// What a card on the board shows of a project, and what "mine" and the columns are decided by.
package struct BoardCard: Equatable, Sendable {
    package var id: String
    package var name: String
    package var due: CalendarDate?
    package var complete: Bool
    package var lead: String?
    /// The user ids of the lead and the team.
    package var people: Set<String>
    /// Done and total tasks, where the base has tasks.
    package var tasks: (done: Int, total: Int)?
    /// The user ids of the assignees of its tasks.
    package var assignees: Set<String> = []

    package init(_ project: Project, tasks: [ProjectTask]? = nil) {
        id = project.id
        name = project.name ?? project.id
        due = project.due
        complete = project.isComplete
        lead = project.lead?.displayName
        people = Set(([project.lead].compactMap { $0 } + project.team).compactMap(\.id))
        if let tasks {
            self.tasks = (tasks.filter(\.isComplete).count, tasks.count)
            assignees = Set(tasks.compactMap { $0.assignee?.id })
        }
    }

    package static func == (left: BoardCard, right: BoardCard) -> Bool {
        left.id == right.id && left.name == right.name && left.due == right.due && left.complete == right.complete
            && left.lead == right.lead && left.people == right.people && left.tasks?.done == right.tasks?.done
            && left.tasks?.total == right.tasks?.total && left.assignees == right.assignees
    }

    /// The board's columns, in order.
    package enum Column: Int, CaseIterable, Sendable {
        case overdue, thisWeek, later, done

        package var title: String {
            switch self {
            case .overdue: "Overdue"
            case .thisWeek: "This week"
            case .later: "Later"
            case .done: "Done"
            }
        }
    }

    /// Overdue (due before today), this week (due within 7 days, `DueWithin`), later (after, or no due date), done (the listing
    /// brings only those completed in the last 14 days).
    package func column(today: CalendarDate) -> Column {
        if complete { return .done }
        guard let due else { return .later }
        if due < today { return .overdue }
        return DueWithin(days: 7, from: today).contains(due) ? .thisWeek : .later
    }

    /// The order within a column: overdue oldest first, this week and later soonest first (no date last), done latest
    /// due first; then by name.
    package func sortKey(in column: Column) -> (Int, String) {
        let day = due?.dayNumber ?? Int.max
        return (column == .done ? -(due?.dayNumber ?? Int.min + 1) : day, name.lowercased())
    }

    /// Whether the user `me` leads it, is on its team, or is assigned one of its tasks.
    package func isMine(_ me: String?) -> Bool {
        guard let me else { return false }
        return people.contains(me) || assignees.contains(me)
    }
}
