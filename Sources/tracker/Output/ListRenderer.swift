import TrackerModel
import TrackerOperations

/// Turns pages of projects into text as they arrive, so a listing never waits for (or holds) the whole table.
protocol ListRenderer {
    /// Text for one page; the first call may carry a header.
    mutating func render(page: [Project]) -> String
    /// Text that closes the listing, after the last page.
    mutating func finish() -> String
}

/// Makes the renderer for a format; `columns` applies to the table, TSV and CSV.
func makeRenderer(
    _ format: ListFormat, today: CalendarDate, style: Style, width: Int, columns: [ListColumn] = ListColumn.defaults,
    formatter: FieldFormatter = FieldFormatter()
) -> any ListRenderer {
    switch format {
    case .tsv: DelimitedRenderer(today: today, isCSV: false, columns: columns)
    case .csv: DelimitedRenderer(today: today, isCSV: true, columns: columns)
    case .json: JSONArrayRenderer(today: today)
    case .ndjson: NDJSONRenderer(today: today)
    case .table: TableRenderer(today: today, style: style, width: width, columns: columns, formatter: formatter)
    }
}

struct DelimitedRenderer: ListRenderer {
    var today: CalendarDate
    var isCSV: Bool
    var columns: [ListColumn]
    private var hasHeader = false

    init(today: CalendarDate, isCSV: Bool, columns: [ListColumn] = ListColumn.defaults) {
        self.today = today
        self.isCSV = isCSV
        self.columns = columns
    }

    private var header: String { columns.map(\.rawValue).joined(separator: ",") + "\r\n" }

    mutating func render(page: [Project]) -> String {
        var text = ""
        if isCSV && !hasHeader {
            text += header
            hasHeader = true
        }
        for project in page {
            let cells = columns.map { $0.value(project, today: today) }
            if isCSV {
                text +=
                    cells.map { Self.csvField(TextCells.safe($0, breaks: .keepNewlinesAndTabs)) }.joined(
                        separator: ",") + "\r\n"
            } else {
                text += cells.map(TextCells.folded).joined(separator: "\t") + "\n"
            }
        }
        return text
    }

    mutating func finish() -> String { isCSV && !hasHeader ? header : "" }

    /// RFC 4180: quote a field holding a comma, quote or line break, doubling its quotes.
    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }
}

struct JSONArrayRenderer: ListRenderer {
    var today: CalendarDate
    private var count = 0

    init(today: CalendarDate) { self.today = today }

    mutating func render(page: [Project]) -> String {
        var json = JSONWriter(capacity: 512 * page.count)
        for project in page {
            json.raw(count == 0 ? "[\n" : ",\n")
            project.writeJSON(today: today, to: &json)
            count += 1
        }
        return json.text
    }

    mutating func finish() -> String { count == 0 ? "[]\n" : "\n]\n" }
}

struct NDJSONRenderer: ListRenderer {
    var today: CalendarDate

    mutating func render(page: [Project]) -> String {
        var json = JSONWriter(capacity: 512 * page.count)
        for project in page {
            project.writeJSON(today: today, to: &json)
            json.raw("\n")
        }
        return json.text
    }

    mutating func finish() -> String { "" }
}
