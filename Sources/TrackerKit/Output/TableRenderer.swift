/// The terminal table: aligned columns fitted to the width, relative due dates, status in words and colour.
///
/// Column widths are set from the first page and kept, so later pages stream out aligned with it.
struct TableRenderer: ListRenderer {
    private struct Column {
        var title: String
        var width: Int
        var cell: (Project) -> String
    }

    var today: CalendarDate
    var style: Style
    var width: Int
    private var columns: [Column] = []

    init(today: CalendarDate, style: Style, width: Int) {
        self.today = today
        self.style = style
        self.width = max(width, 40)
    }

    mutating func render(page: [Project]) -> String {
        var text = ""
        if columns.isEmpty {
            guard !page.isEmpty else { return "" }
            columns = layout(for: page)
            let header = columns.map { TextCells.fit($0.title, $0.width) }.joined(separator: "  ")
            text += style.bold(trimmed(header)) + "\n"
        }
        for project in page {
            let status = project.status(today: today)
            let cells = columns.map { column -> String in
                let cell = TextCells.fit(TextCells.folded(column.cell(project)), column.width)
                switch column.title {
                case "STATUS": return style.status(status, cell)
                case "DUE" where status == .overdue: return style.red(cell)
                case "DUE" where status == .open && (project.due.map { today.days(until: $0) <= 7 } ?? false):
                    return style.yellow(cell)
                case "ID": return style.dim(cell)
                default: return cell
                }
            }
            text += trimmed(cells.joined(separator: "  ")) + "\n"
        }
        return text
    }

    mutating func finish() -> String { "" }

    private func trimmed(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }

    private func due(_ project: Project, withDate: Bool) -> String {
        guard let due = project.due else { return "" }
        let relative = due.relative(to: today)
        if withDate { return "\(due) (\(relative))" }
        // Far from today, the date itself says more than "6 years ago".
        return abs(today.days(until: due)) < 60 ? relative : due.description
    }

    /// Chooses columns and widths: ID, NAME, DUE and STATUS always; CATEGORY and LEAD when they fit.
    private func layout(for page: [Project]) -> [Column] {
        let wide = width >= 110
        func widest(_ title: String, _ cell: (Project) -> String, cap: Int) -> Int {
            min(
                cap,
                page.map { TextCells.width(TextCells.folded(cell($0))) }.max().map { max($0, title.count) }
                    ?? title.count)
        }
        let dueCell: (Project) -> String = { [self] in due($0, withDate: wide) }
        let leadCell: (Project) -> String = { $0.lead?.displayName ?? "" }
        let categoryCell: (Project) -> String = { $0.category ?? "" }
        var fixed: [Column] = [
            Column(title: "DUE", width: widest("DUE", dueCell, cap: 26), cell: dueCell),
            Column(title: "STATUS", width: 7, cell: { [today] in $0.status(today: today).rawValue }),
            Column(title: "CATEGORY", width: widest("CATEGORY", categoryCell, cap: 18), cell: categoryCell),
            Column(title: "LEAD", width: widest("LEAD", leadCell, cap: 18), cell: leadCell),
        ]
        let idWidth = 17
        let widestName = widest("NAME", { $0.name ?? "" }, cap: 60)
        let minimumName = min(16, widestName)
        func nameRoom() -> Int { width - idWidth - fixed.reduce(0) { $0 + $1.width + 2 } - 2 }
        while nameRoom() < minimumName, fixed.count > 2 { fixed.removeLast() }
        let nameWidth = min(max(nameRoom(), 8), widestName)
        let id = Column(title: "ID", width: idWidth, cell: { $0.id })
        let name = Column(title: "NAME", width: nameWidth, cell: { $0.name ?? "" })
        return [id, name] + fixed
    }
}
