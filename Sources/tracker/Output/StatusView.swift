import TrackerModel
import TrackerOperations

/// `tracker status` as text: a screen on a terminal, at most `width` (80 piped) columns for cron's mail.
struct StatusView {
    var today: CalendarDate
    var days: Int
    var style: Style
    var width: Int
    var unicode: Bool

    func render(_ report: StatusReport) -> String {
        var out =
            style.bold(TextCells.fit(TextCells.folded(report.user.displayName), max(10, width - 14)).trimmedRight)
            + "  " + today.description + "\n"
        let nameWidth = max(16, min(40, width - 44))
        func name(_ text: String?) -> String {
            TextCells.fit(TextCells.folded(text ?? ""), nameWidth, ellipsis: unicode ? "…" : "~")
        }
        if !report.projects.isEmpty {
            out += "\n" + style.bold("Your projects") + " (\(report.projects.count))\n"
            for project in report.projects {
                let status = project.status(today: today)
                let label = status == .overdue ? "overdue " : "due soon"
                let due = project.due.map { "due \($0) (\($0.relative(to: today)))" } ?? ""
                out += ("  " + style.status(status, label) + "  " + name(project.name) + "  " + due).trimmedRight + "\n"
            }
        }
        let open = report.tasks.tasks
        if !open.isEmpty {
            let days = open.compactMap(\.estimate).reduce(0, +)
            let estimate = days > 0 ? ", \(ProjectTask.days((days * 10).rounded() / 10)) days" : ""
            out += "\n" + style.bold("Your open tasks") + " (\(open.count)\(estimate))\n"
            for task in open {
                let project = report.tasks.project(of: task)
                let box = unicode ? "☐" : "[ ]"
                let due = project?.due.map { "due \($0)" } ?? ""
                let overdue = project?.status(today: today) == .overdue
                let projectName = TextCells.fit(
                    TextCells.folded(project?.name ?? ""), max(8, width - nameWidth - 22 - (unicode ? 2 : 4)),
                    ellipsis: unicode ? "…" : "~")
                out +=
                    ("  \(box) " + name(task.name) + "  " + projectName + "  " + (overdue ? style.red(due) : due))
                    .trimmedRight + "\n"
            }
        }
        if !report.newProjects.isEmpty || !report.newTasks.isEmpty {
            out += "\n" + style.bold("New for you in the last \(self.days) day\(self.days == 1 ? "" : "s")") + "\n"
            for project in report.newProjects {
                out +=
                    ("  project  " + name(project.name) + "  " + (project.due.map { "due \($0)" } ?? "")).trimmedRight
                    + "\n"
            }
            for task in report.newTasks {
                let project = report.tasks.project(of: task)?.name
                out +=
                    ("  task     " + name(task.name) + "  " + (project.map { "in " + TextCells.folded($0) } ?? ""))
                    .trimmedRight + "\n"
            }
        }
        return out
    }
}
