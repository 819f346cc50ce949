import TrackerModel

extension ReportDocument {
    package static let tasksTitle = "Open tasks in overdue projects"

    /// The open tasks of the overdue projects grouped by assignee (people by name, the unassigned last).
    package var tasksByAssignee: [(name: String, tasks: [ProjectTask])] {
        guard let tasks else { return [] }
        var groups: [String: [ProjectTask]] = [:]
        for task in tasks.tasks { groups[task.assignee?.displayName ?? "", default: []].append(task) }
        return groups.keys.sorted { ($0.isEmpty ? 1 : 0, $0.lowercased()) < ($1.isEmpty ? 1 : 0, $1.lowercased()) }.map
        {
            (name: $0.isEmpty ? "Unassigned" : $0, tasks: groups[$0]!)
        }
    }

    /// The section as text within 80 columns: a group an assignee, a line a task and its project.
    package func tasksText() -> String {
        guard let tasks, !tasks.tasks.isEmpty else { return "" }
        var out = "\n\(Self.tasksTitle) (\(tasks.tasks.count))\n"
        let names = tasks.tasks.map { TextCells.folded($0.name ?? $0.id) }
        let nameWidth = min(40, names.map(TextCells.width).max() ?? 0)
        let projects = tasks.tasks.map { tasks.project(of: $0).map(Self.name) ?? "" }
        let projectWidth = min(max(10, Self.width - 6 - nameWidth - 8), projects.map(TextCells.width).max() ?? 0)
        for group in tasksByAssignee {
            out +=
                "  " + TextCells.fit("\(TextCells.folded(group.name)) (\(group.tasks.count))", 76).trimmedRight + "\n"
            for task in group.tasks {
                let project = tasks.project(of: task).map(Self.name) ?? ""
                var line = "    " + TextCells.fit(TextCells.folded(task.name ?? task.id), nameWidth) + "  "
                line += TextCells.fit(project, projectWidth)
                if let estimate = task.estimate { line += "  " + ProjectTask.days(estimate) + "d" }
                out += line.trimmedRight + "\n"
            }
        }
        return out
    }

    /// The section as markdown: a heading an assignee, a list item a task.
    package func tasksMarkdown() -> String {
        guard let tasks, !tasks.tasks.isEmpty else { return "" }
        var out = "\n## \(Self.tasksTitle) (\(tasks.tasks.count))\n"
        for group in tasksByAssignee {
            out += "\n### \(Self.escapedMarkdown(TextCells.folded(group.name))) (\(group.tasks.count))\n\n"
            for task in group.tasks {
                var details = [tasks.project(of: task).map { Self.escapedMarkdown(Self.name($0)) } ?? "no project"]
                if let estimate = task.estimate { details.append("\(ProjectTask.days(estimate)) days") }
                out +=
                    "- \(Self.escapedMarkdown(TextCells.folded(task.name ?? task.id))) (\(details.joined(separator: ", ")))\n"
            }
        }
        return out
    }

    /// The section as HTML, styled as the others.
    package func tasksHTML() -> String {
        guard let tasks, !tasks.tasks.isEmpty else { return "" }
        let cell = "padding:2px 12px 2px 0;vertical-align:top"
        var out = "<h2 style=\"font-size:16px;margin:16px 0 4px;color:#1f2328\">"
        out += "\(Self.tasksTitle) (\(tasks.tasks.count))</h2>\n"
        for group in tasksByAssignee {
            out += "<h3 style=\"font-size:14px;margin:8px 0 2px\">"
            out += "\(Self.escapedHTML(TextCells.folded(group.name))) (\(group.tasks.count))</h3>\n"
            out += "<table style=\"border-collapse:collapse;font-size:14px\">\n"
            for task in group.tasks {
                out += "<tr><td style=\"\(cell)\">" + Self.escapedHTML(TextCells.folded(task.name ?? task.id))
                out += "</td><td style=\"\(cell)\">" + Self.escapedHTML(tasks.project(of: task).map(Self.name) ?? "")
                out += "</td><td style=\"\(cell)\">" + (task.estimate.map { ProjectTask.days($0) + " days" } ?? "")
                out += "</td></tr>\n"
            }
            out += "</table>\n"
        }
        return out
    }
}
