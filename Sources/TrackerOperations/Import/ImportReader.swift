#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// The formats `tracker import` reads.
package enum ImportFormat: String, Sendable, CaseIterable {
    case csv, ndjson, json

    /// The format a file's name implies, if any.
    package static func implied(byPath path: String) -> ImportFormat? {
        switch Path.pathExtension(of: path).lowercased() {
        case "csv": .csv
        case "ndjson", "jsonl": .ndjson
        case "json": .json
        default: nil
        }
    }

    /// The format the text looks like: a JSON array, JSON objects one a line, else CSV.
    package static func sniffed(_ text: String) -> ImportFormat {
        switch text.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }) {
        case "[": .json
        case "{": .ndjson
        default: .csv
        }
    }
}

/// One value of an input row, as the file held it.
package enum ImportValue: Equatable {
    case empty
    case text(String)
    case bool(Bool)
    /// A list (team, clients): strings, or people as `{name, email}`.
    case list([ImportValue])
    /// A person as the JSON output writes one.
    case person(name: String?, email: String?)
}

/// One row of the input: where it starts, its values by column, and the base's own fields of a JSON row.
package struct ImportRow: Equatable {
    package var line: Int
    package var values: [String: ImportValue]
    /// The `"fields"` object of a row `list --format ndjson` wrote: the base's own fields as Airtable returned them.
    package var baseFields: [FieldValue] = []
}

/// A row that could not be read at all (malformed JSON, a CSV row with too many cells).
package struct ImportProblem: Error, Equatable {
    package var line: Int
    package var message: String
    /// Each stored value given.
    package init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// Reads rows from the text of a CSV, NDJSON or JSON file, keeping each row's line number.
package enum ImportReader {
    package static func rows(_ text: String, format: ImportFormat) -> (rows: [ImportRow], problems: [ImportProblem]) {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        switch format {
        case .csv: return csvRows(text)
        case .ndjson: return objects(ndjsonLines(text))
        case .json: return jsonArray(text)
        }
    }

    // MARK: - CSV

    /// RFC 4180 with a header row; `;` inside a cell separates several values of a list column.
    private static func csvRows(_ text: String) -> ([ImportRow], [ImportProblem]) {
        let records = csvRecords(text)
        guard let header = records.first else { return ([], []) }
        // Kept as the file spells them, so messages name them so; tracker's own columns are matched in any case.
        let columns = header.cells.map { $0.trimmingWhitespace() }
        var rows: [ImportRow] = []
        var problems: [ImportProblem] = []
        for record in records.dropFirst() where !(record.cells.count == 1 && record.cells[0].isEmpty) {
            guard record.cells.count <= columns.count else {
                problems.append(
                    ImportProblem(
                        line: record.line,
                        message: "\(record.cells.count) cells, but the header names \(columns.count) columns"))
                continue
            }
            var values: [String: ImportValue] = [:]
            for (column, cell) in zip(columns, record.cells) {
                values[column] = cell.isEmpty ? .empty : .text(cell)
            }
            rows.append(ImportRow(line: record.line, values: values))
        }
        return (rows, problems)
    }

    /// The records of a CSV text, each with the line it starts on; quoted cells may hold commas, quotes and newlines.
    package static func csvRecords(_ text: String) -> [(line: Int, cells: [String])] {
        var records: [(line: Int, cells: [String])] = []
        var cells: [String] = []
        var cell = ""
        var line = 1
        var start = 1
        var inQuotes = false
        var afterQuote = false
        var characters = text.makeIterator()
        func endRecord() {
            cells.append(cell)
            records.append((start, cells))
            cells = []
            cell = ""
        }
        while let character = characters.next() {
            if inQuotes {
                if character == "\"" {
                    inQuotes = false
                    afterQuote = true
                } else {
                    if character.isNewline { line += 1 }
                    cell.append(character)
                }
                continue
            }
            switch character {
            case "\"" where afterQuote:
                // A doubled quote inside a quoted cell.
                cell.append("\"")
                inQuotes = true
                afterQuote = false
            case "\"" where cell.isEmpty:
                inQuotes = true
            case ",":
                cells.append(cell)
                cell = ""
                afterQuote = false
            case "\n", "\r\n", "\r":
                endRecord()
                line += 1
                start = line
                afterQuote = false
            default:
                cell.append(character)
                afterQuote = false
            }
        }
        if !cell.isEmpty || !cells.isEmpty { endRecord() }
        return records
    }

    // MARK: - JSON

    /// NDJSON: one object a line; blank lines are skipped.
    private static func ndjsonLines(_ text: String) -> [(line: Int, text: Substring)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            line.allSatisfy(\.isWhitespace) ? nil : (index + 1, line)
        }
    }

    /// A JSON array: its elements, each with the line it starts on.
    private static func jsonArray(_ text: String) -> ([ImportRow], [ImportProblem]) {
        var elements: [(line: Int, text: Substring)] = []
        var line = 1
        var depth = 0
        var inString = false
        var escaped = false
        var start: String.Index?
        var startLine = 1
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\n" { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else {
                switch character {
                case "\"": inString = true
                case "[", "{":
                    depth += 1
                    if depth == 2 && character == "{" {
                        start = index
                        startLine = line
                    }
                case "]", "}":
                    if depth == 2, let from = start, character == "}" {
                        elements.append((startLine, text[from...index]))
                        start = nil
                    }
                    depth -= 1
                default: break
                }
            }
            index = text.index(after: index)
        }
        guard text.first(where: { !$0.isWhitespace }) == "[", depth == 0, !inString else {
            return ([], [ImportProblem(line: line, message: "the JSON array is not complete")])
        }
        return objects(elements)
    }

    private static func objects(_ texts: [(line: Int, text: Substring)]) -> ([ImportRow], [ImportProblem]) {
        var rows: [ImportRow] = []
        var problems: [ImportProblem] = []
        for (line, text) in texts {
            guard case .object(let members)? = try? JSONParser.parse(String(text)) else {
                problems.append(ImportProblem(line: line, message: "not a JSON object"))
                continue
            }
            var row = ImportRow(line: line, values: [:])
            for (key, value) in members {
                // `list --format ndjson` writes the base's own fields, as Airtable returned them, under "fields".
                if key == "fields", let fields = value.objectMembers {
                    row.baseFields = fields.map { FieldValue($0.0, $0.1) }
                } else {
                    row.values[key] = importValue(value)
                }
            }
            rows.append(row)
        }
        return (rows, problems)
    }

    /// A JSON value as a row value: booleans stay apart from numbers, people keep their name and email.
    private static func importValue(_ value: JSONValue) -> ImportValue {
        switch value {
        case .null: .empty
        case .bool(let flag): .bool(flag)
        case .number(let number): .text(number == number.rounded() ? String(Int64(number)) : String(number))
        case .string(let text): text.isEmpty ? .empty : .text(text)
        case .array(let list): list.isEmpty ? .empty : .list(list.map(importValue))
        case .object: .person(name: value["name"]?.stringValue, email: value["email"]?.stringValue)
        }
    }
}
