import TrackerModel
import TrackerOperations

extension TaskRows {
    /// The value of one column for a task.
    func cell(_ column: TaskColumn, _ task: ProjectTask) -> String { cell(column, task, project: project(of: task)) }

    /// The value of one column, the task's project already looked up.
    private func cell(_ column: TaskColumn, _ task: ProjectTask, project: Project?) -> String {
        switch column {
        case .id: return task.id
        case .name: return task.name ?? ""
        case .projectName: return project?.name ?? ""
        case .projectID: return task.project ?? ""
        case .due: return project?.due?.description ?? ""
        case .status: return project.map { $0.status(today: today).rawValue } ?? ""
        case .assigneeName: return task.assignee?.displayName ?? ""
        case .assigneeEmail: return task.assignee?.email ?? ""
        case .estimate: return task.estimate.map(ProjectTask.days) ?? ""
        case .complete: return task.isComplete ? "true" : "false"
        case .notes: return task.notes ?? ""
        case .createdTime: return task.createdTime
        }
    }

    /// Tab-separated lines, no header; tabs and newlines folded, controls made visible.
    func tsv(_ columns: [TaskColumn]) -> String {
        var out = ""
        out.reserveCapacity(tasks.count * 100)
        for task in tasks {
            let project = project(of: task)
            for (index, column) in columns.enumerated() {
                if index > 0 { out += "\t" }
                out += TextCells.folded(cell(column, task, project: project))
            }
            out += "\n"
        }
        return out
    }

    /// RFC 4180 with a header row.
    func csv(_ columns: [TaskColumn]) -> String {
        let header = columns.map(\.rawValue).joined(separator: ",") + "\r\n"
        return header
            + tasks.map { task in
                let project = project(of: task)
                return columns.map { DelimitedRenderer.csvField(cell($0, task, project: project)) }.joined(
                    separator: ",")
                    + "\r\n"
            }.joined()
    }

    /// The tasks alone, one a line with a box, assignee and estimate: what `show` lists under a project.
    func rows(width: Int, unicode: Bool, indent: String = "    ") -> String {
        let (nameWidth, personWidth) = widths(width - indent.count + 2, unicode: unicode)
        return tasks.indices.map {
            row(tasks[$0], $0, indent: indent, nameWidth: nameWidth, personWidth: personWidth, unicode: unicode)
        }.joined()
    }

    /// The name and assignee columns' widths: the assignee and an estimate such as "12.5d" keep their room, the name
    /// takes the rest.
    private func widths(_ width: Int, unicode: Bool) -> (name: Int, person: Int) {
        let personWidth = min(24, tasks.map { TextCells.width(TextCells.folded(cell(.assigneeName, $0))) }.max() ?? 0)
        let room = max(8, width - 2 - (unicode ? 1 : 3) - 1 - (personWidth > 0 ? personWidth + 2 : 0) - 8)
        let nameWidth = min(room, tasks.map { TextCells.width(TextCells.folded($0.name ?? "")) }.max() ?? 0)
        return (nameWidth, personWidth)
    }

    private func row(
        _ task: ProjectTask, _ index: Int, indent: String, nameWidth: Int, personWidth: Int, unicode: Bool
    ) -> String {
        let ellipsis = unicode ? "…" : "~"
        var row = indent + (task.isComplete ? (unicode ? "✓" : "[x]") : (unicode ? "☐" : "[ ]")) + " "
        row += TextCells.fit(TextCells.folded(task.name ?? ""), nameWidth, ellipsis: ellipsis)
        if personWidth > 0 {
            row += "  " + TextCells.fit(TextCells.folded(cell(.assigneeName, task)), personWidth, ellipsis: ellipsis)
        }
        if let estimate = task.estimate { row += "  " + ProjectTask.days(estimate) + "d" }
        return String(row.reversed().drop { $0 == " " }.reversed()) + "\n"
    }

    /// On a terminal: the tasks grouped under their project's name, due date and status (overdue in red), each with a
    /// box, its assignee and estimate, names shortened to fit `width`.
    func grouped(width: Int, style: Style, unicode: Bool) -> String {
        var out = ""
        var shown: String?? = .none
        let ellipsis = unicode ? "…" : "~"
        func trimmed(_ text: String) -> String { String(text.reversed().drop { $0 == " " }.reversed()) }
        let (nameWidth, personWidth) = widths(width, unicode: unicode)
        for (index, task) in tasks.enumerated() {
            let project = project(of: task)
            if shown != .some(project?.id) {
                shown = .some(project?.id)
                if !out.isEmpty { out += "\n" }
                if let project {
                    let status = project.status(today: today)
                    let due = project.due.map { "  due \($0)" } ?? ""
                    let name = trimmed(
                        TextCells.fit(
                            TextCells.folded(project.name ?? project.id), max(10, width - 30), ellipsis: ellipsis))
                    out += style.bold(name) + due + "  " + style.status(status, status.rawValue) + "\n"
                } else {
                    out += style.bold(task.project == nil ? "No project" : "Project \(task.project!)") + "\n"
                }
            }
            out += row(task, index, indent: "  ", nameWidth: nameWidth, personWidth: personWidth, unicode: unicode)
        }
        return out
    }
}
