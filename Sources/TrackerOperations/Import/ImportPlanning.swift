#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

extension Import {
    /// Every row read and checked, and matched to the projects that exist; any bad row stops it all (exit 65).
    func plan(_ text: String, format: ImportFormat, in session: Session) async throws -> ImportPlan {
        let (client, today, zone) = (session.client, session.today, session.surroundings.timeZone)
        let (rows, unreadable) = ImportReader.rows(text, format: format)
        var problems = unreadable
        let checker = try await session.checker(command: "import")
        let columns = try await Self.baseColumns(rows, format: format, checker: checker, problems: &problems)
        var inputs: [(line: Int, input: ProjectInput, cells: [BaseCell])] = []
        for row in rows where columns != nil {
            let cells = Self.baseCells(row, columns: columns ?? [:], layout: checker.layout)
            switch cells {
            case .failure(let problem):
                problems.append(problem)
                continue
            case .success: break
            }
            switch ImportColumns.input(row, today: today).flatMap({
                Self.fitting($0, line: row.line, to: client.fields)
            }) {
            case .success(let input): inputs.append((row.line, input, (try? cells.get()) ?? []))
            case .failure(let problem): problems.append(problem)
            }
        }
        try await checker.prefetch(inputs.map(\.input))
        var writes: [(line: Int, write: ProjectWrite, key: [String])] = []
        var firstLine: [[String]: Int] = [:]
        for (line, input, cells) in inputs {
            var write: ProjectWrite
            do {
                write = try await checker.write(
                    for: input, notes: input.notes.flatMap { if case .text(let t) = $0 { t } else { nil } })
                for cell in cells {
                    let target = checker.writeTarget(for: cell.field)
                    if cell.value == .null {
                        write[target] = cell.field.type == "checkbox" ? .bool(false) : .null
                        continue
                    }
                    let typed =
                        cell.isText
                        ? FieldInput.read(
                            cell.value.stringValue ?? "", for: cell.field, separator: ";", today: today,
                            timeZone: zone)
                        : FieldInput.read(json: cell.value, for: cell.field, today: today, timeZone: zone)
                    write[target] = try await checker.resolve(typed, for: cell.field, flag: "")
                }
            } catch let error as AppError {
                guard case .usage = error else { throw error }
                problems.append(ImportProblem(line: line, message: error.message))
                continue
            }
            guard let value = ImportPlan.key(of: write, key) else {
                let missing = key.filter { write[$0]?.stringValue == nil }.map(\.rawValue).joined(separator: ", ")
                problems.append(ImportProblem.at(line, "no \(missing), which the key needs"))
                continue
            }
            if let earlier = firstLine[value] {
                problems.append(
                    ImportProblem.at(
                        line, "the same \(key.map(\.rawValue).joined(separator: ", ")) as line \(earlier)"))
                continue
            }
            firstLine[value] = line
            writes.append((line, write, value))
        }
        let existing = try await Self.projects(matching: writes.map(\.key), key, client)
        var plan = ImportPlan()
        for (line, write, value) in writes {
            let matches = existing[value] ?? []
            switch matches.count {
            case 0:
                var create = write
                for (word, value) in write.cells where value == .null { create[word] = nil }
                let lacking = [FieldMap.Word.name, .due].filter { client.fields[$0] != nil && create[$0] == nil }.map(
                    \.rawValue)
                guard lacking.isEmpty else {
                    problems.append(
                        ImportProblem.at(
                            line, "no \(lacking.joined(separator: " or ")); a new project needs a name and a due date"))
                    continue
                }
                plan.entries.append(.init(line: line, action: .create(create)))
            case 1:
                let changes = ImportPlan.differing(write, from: matches[0], completion: client.fields.completion)
                plan.entries.append(
                    .init(
                        line: line,
                        action: changes.cells.isEmpty ? .unchanged(matches[0]) : .update(matches[0], changes)))
            default:
                let ids = matches.map(\.id).joined(separator: ", ")
                problems.append(
                    ImportProblem.at(
                        line, "its key matches \(matches.count) projects (\(ids)); a key must match at most one"))
            }
        }
        guard problems.isEmpty else {
            let lines = problems.sorted { $0.line < $1.line }.map { "line \($0.line): \($0.message)" }
            throw AppError.invalidRows(count: Set(problems.map(\.line)).count, lines: lines)
        }
        return plan
    }

    /// A value for one of the base's own fields in a row: the text of a CSV cell, or the JSON of a `"fields"` entry.
    private struct BaseCell {
        var field: BaseSchema.Field
        var value: JSONValue
        var isText: Bool
    }

    /// The base's fields the file's other columns name (any case), or nil when one names none, or a field tracker
    /// cannot write: that is a problem of the file, not of a row, and nothing is written.
    private static func baseColumns(
        _ rows: [ImportRow], format: ImportFormat, checker: ValueChecker, problems: inout [ImportProblem]
    ) async throws -> [String: BaseSchema.Field]? {
        var columns: [String: BaseSchema.Field] = [:]
        var unknown: [(line: Int, name: String)] = []
        var refused: [(line: Int, text: String)] = []
        for row in rows {
            for name in ImportColumns.others(in: row) where columns[name] == nil {
                if let field = try await checker.field(matching: name) {
                    if let refusal = FieldInput.refusal(field) {
                        refused.append((format == .csv ? 1 : row.line, "column \"\(name)\": \(refusal)"))
                    }
                    columns[name] = field
                } else if !unknown.contains(where: { $0.name == name }) {
                    unknown.append((format == .csv ? 1 : row.line, name))
                }
            }
        }
        if !unknown.isEmpty {
            let names = unknown.map { "\"\($0.name)\"" }.joined(separator: ", ")
            let fields =
                checker.layout.table == nil
                ? " (the base's fields need the schema.bases:read scope)" : ", or the base's fields"
            problems.append(
                ImportProblem(
                    line: unknown[0].line,
                    message: "unknown column\(unknown.count == 1 ? "" : "s") \(names); columns are "
                        + ImportColumns.known.prefix(12).joined(separator: " ") + fields))
        }
        for (line, text) in refused { problems.append(ImportProblem(line: line, message: text)) }
        return unknown.isEmpty && refused.isEmpty ? columns : nil
    }

    /// A row's values for the base's own fields. A `"fields"` entry tracker cannot write (a formula, attachments) is
    /// what `list` shows, not an input, and is passed over; one the table lacks is a problem of the row.
    private static func baseCells(_ row: ImportRow, columns: [String: BaseSchema.Field], layout: TableLayout) -> Result<
        [BaseCell], ImportProblem
    > {
        var cells: [BaseCell] = []
        for (name, field) in columns.sorted(by: { $0.key < $1.key }) {
            switch row.values[name] {
            case .text(let text)?: cells.append(BaseCell(field: field, value: .string(text), isText: true))
            case .empty?: cells.append(BaseCell(field: field, value: .null, isText: true))
            case nil: break
            default:
                return .failure(ImportProblem(line: row.line, message: "\(name) is not a value for that field"))
            }
        }
        for entry in row.baseFields {
            guard let field = layout.table?.field(named: entry.name) else {
                return .failure(ImportProblem(line: row.line, message: "the table has no field \"\(entry.name)\""))
            }
            guard FieldInput.refusal(field) == nil, !layout.fields.isTrackerField(field.name) else { continue }
            cells.append(BaseCell(field: field, value: entry.value, isText: false))
        }
        return .success(cells)
    }

    /// `input` without what a field the base lacks would hold: an empty value is fine, a real one is a problem.
    private static func fitting(_ input: ProjectInput, line: Int, to fields: FieldMap) -> Result<
        ProjectInput, ImportProblem
    > {
        var input = input
        var lacking: [String] = []
        for word in fields.absent {
            input.cleared.removeAll { $0 == word }
            switch word {
            case .name: break
            case .due: if input.due != nil { lacking.append("due") }
            case .kickoff: if input.kickoff != nil { lacking.append("kickoff") }
            case .category: if input.category != nil { lacking.append("category") }
            case .lead: if input.lead != nil { lacking.append("lead") }
            case .team: if !(input.team ?? []).isEmpty { lacking.append("team") } else { input.team = nil }
            case .client: if !(input.clients ?? []).isEmpty { lacking.append("client") } else { input.clients = nil }
            case .notes: if input.notes != nil { lacking.append("notes") }
            case .complete: if input.complete == true { lacking.append("complete") } else { input.complete = nil }
            }
        }
        guard lacking.isEmpty else {
            return .failure(
                ImportProblem(
                    line: line, message: "this base has no \(lacking.joined(separator: ", ")) field for the row's value"
                ))
        }
        return .success(input)
    }

    /// The projects whose key equals one of `keys`, by key; looked up five hundred rows a request (a long formula goes
    /// as `POST …/listRecords`), never by reading the whole table.
    private static func projects(matching keys: [[String]], _ key: [FieldMap.Word], _ client: ProjectAPIClient)
        async throws
        -> [[String]: [Project]]
    {
        var found: [[String]: [Project]] = [:]
        for chunk in keys.chunked(into: 500) {
            let formula = ImportPlan.lookupFormula(chunk, key, map: client.fields)
            let wanted = Set(chunk)
            for project in try await client.projects(matching: formula).get() {
                let projectKey = ImportPlan.key(of: project, key)
                if wanted.contains(projectKey) && !(found[projectKey]?.contains { $0.id == project.id } ?? false) {
                    found[projectKey, default: []].append(project)
                }
            }
        }
        return found
    }
}

extension ImportProblem {
    /// A problem of the row on `line`.
    static func at(_ line: Int, _ message: String) -> ImportProblem { ImportProblem(line: line, message: message) }
}
