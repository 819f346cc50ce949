import TrackerModel
import TrackerOperations
/// The terminal table: aligned columns fitted to the width, due dates as ISO dates with a relative phrase when it
/// fits, status in words and colour.
///
/// Column widths are set from the first page and kept, so later pages stream out aligned with it. When the terminal
/// is narrow the table gives up, in order: the relative phrase, NAME's width, then whole columns from the right
/// (never ID, NAME, DUE or STATUS), and says which in `leftOut`. The ISO due date always stays.
struct TableRenderer: ListRenderer {
    private struct Column {
        var kind: ListColumn
        var width: Int
    }

    var today: CalendarDate
    var style: Style
    var width: Int
    var wanted: [ListColumn]
    /// Shows the base's own fields by their type.
    var formatter: FieldFormatter
    private var columns: [Column] = []
    private var withRelativeDates = true
    /// The columns left out to fit the width.
    private(set) var leftOut: [ListColumn] = []

    init(
        today: CalendarDate, style: Style, width: Int, columns: [ListColumn] = ListColumn.defaults,
        formatter: FieldFormatter = FieldFormatter()
    ) {
        self.today = today
        self.style = style
        self.width = max(width, 40)
        self.wanted = columns
        self.formatter = formatter
    }

    mutating func render(page: [Project]) -> String {
        var text = ""
        if columns.isEmpty {
            guard !page.isEmpty else { return "" }
            layout(for: page)
            let header = columns.map { TextCells.fit($0.kind.title, $0.width) }.joined(separator: "  ")
            text += style.bold(TextCells.withoutTrailingSpaces(header)) + "\n"
        }
        for project in page {
            let status = project.status(today: today)
            let cells = columns.map { column -> String in
                let cell = TextCells.fit(TextCells.folded(self.cell(column.kind, project)), column.width)
                switch column.kind {
                case .status: return style.status(status, cell)
                case .due where status == .overdue: return style.red(cell)
                case .due where status == .open && (project.due.map { today.days(until: $0) <= 7 } ?? false):
                    return style.yellow(cell)
                case .id: return style.dim(cell)
                default: return cell
                }
            }
            text += TextCells.withoutTrailingSpaces(cells.joined(separator: "  ")) + "\n"
        }
        return text
    }

    mutating func finish() -> String { "" }

    private func cell(_ kind: ListColumn, _ project: Project) -> String {
        switch kind {
        case .due:
            guard let due = project.due else { return "" }
            return withRelativeDates ? "\(due) (\(due.relative(to: today)))" : due.description
        case .team: return project.team.map(\.displayName).joined(separator: ", ")
        case .clients: return project.clients.joined(separator: ", ")
        case .field(let name):
            return formatter.text(project.otherFields.first { $0.name == name }?.value, field: name) ?? ""
        default: return kind.value(project, today: today)
        }
    }

    /// Widths from the first page, then the table made to fit, giving things up in the documented order.
    private mutating func layout(for page: [Project]) {
        func natural(_ kind: ListColumn) -> Int {
            let cap =
                switch kind {
                case .name: 60
                case .notes: 40
                case .due: 26
                default: 24
                }
            let widest = page.map { TextCells.width(TextCells.folded(cell(kind, $0))) }.max() ?? 0
            return min(cap, max(widest, kind.title.count))
        }
        func total() -> Int { columns.reduce(0) { $0 + $1.width } + 2 * max(0, columns.count - 1) }
        columns = wanted.map { Column(kind: $0, width: natural($0)) }
        if total() > width, let due = columns.firstIndex(where: { $0.kind == .due }) {
            withRelativeDates = false
            columns[due].width = natural(.due)
        }
        let flexible: [ListColumn] = [.notes, .team, .clients, .name]
        for kind in flexible {
            guard total() > width, let index = columns.firstIndex(where: { $0.kind == kind }) else { continue }
            columns[index].width = max(min(20, columns[index].width), columns[index].width - (total() - width))
        }
        let kept: Set<ListColumn> = [.id, .name, .due, .status]
        while total() > width, let index = columns.lastIndex(where: { !kept.contains($0.kind) }) {
            leftOut.insert(columns.remove(at: index).kind, at: 0)
        }
        guard let name = columns.firstIndex(where: { $0.kind == .name }) else { return }
        if total() > width {
            columns[name].width = max(8, columns[name].width - (total() - width))
        } else {
            // Width a dropped column freed goes back to NAME.
            columns[name].width = min(natural(.name), columns[name].width + width - total())
        }
    }
}

extension ListRenderer {
    /// Columns a renderer left out to fit the terminal; only the table does.
    var leftOut: [ListColumn] { (self as? TableRenderer)?.leftOut ?? [] }
}
