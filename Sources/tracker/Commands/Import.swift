#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// `tracker import`: creates and updates projects from CSV or JSON; safe to run again.
struct Import: Command {
    static let spec = CommandSpec(
        name: "import", summary: "Create and update projects from CSV or JSON; safe to run again.",
        usage: ["tracker import [FILE|-] [--format csv|ndjson|json] [--key FIELD[,FIELD]] [--dry-run] [--json] [-q]"],
        positional: "FILE",
        flags: [
            FlagSpec(
                name: "--format", value: "FORMAT", choices: ImportFormat.allCases.map(\.rawValue),
                help: "csv, ndjson or json; else from the file's extension, else guessed"),
            FlagSpec(
                name: "--key", value: "FIELDS", choices: ["name", "due", "category"], checksChoices: false,
                help: "what matches a row to a project: up to three of name, due, category (default name)"),
        ] + CommandSpec.writeFlags,
        examples: [
            "tracker list --format ndjson > all.ndjson; tracker import all.ndjson",
            "tracker import projects.csv --dry-run", "cat rows.csv | tracker import - --key name,due",
        ],
        notes: [
            "CSV columns: name due kickoff category lead team client notes complete (what list writes too);",
            "several emails or clients in one cell are separated by ;. Every row is checked before anything is written.",
            "A row whose key matches one project updates it; interrupted imports finish when run again.",
        ])

    /// The file to read; nil or `-` for standard input.
    var file: String? = nil
    /// The format; nil takes it from the file's extension, else from what the text looks like.
    var format: ImportFormat? = nil
    /// The fields that match a row to an existing project: one to three of name, due, category.
    var key: [FieldMap.Word] = [.name]
    var mode = WriteMode()

    func run(_ runner: Runner) async throws { try await runner.importProjects(self) }
}

extension Import {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals(allowed: 1)
        self.init(file: scanned.positionals.first, mode: try scanned.writeMode())
        format = scanned.last("--format").flatMap(ImportFormat.init(rawValue:))
        if let text = scanned.last("--key") {
            var key: [FieldMap.Word] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let word = item.trimmingWhitespace().lowercased()
                guard let field = FieldMap.Word(rawValue: word), [.name, .due, .category].contains(field) else {
                    throw AppError.usage(
                        "--key takes up to three of name, due, category, not '\(item)'", command: "import")
                }
                if !key.contains(field) { key.append(field) }
            }
            self.key = key
        }
    }
}

extension Runner {
    /// `tracker import`: reads rows, checks every one, plans create / update / unchanged from Airtable's current state,
    /// then writes ten rows a request. New projects go as upserts on the key, so running the same import again, after
    /// any failure or a kill, finishes the job without adding a project twice.
    fileprivate func importProjects(_ options: Import) async throws {
        let text = try readImportText(options.file)
        let format = options.format ?? options.file.flatMap(ImportFormat.implied(byPath:)) ?? .sniffed(text)
        let base = try await prepareBase()
        let client = base.client
        for word in options.key {
            _ = try requireField(word, for: "--key \(word.rawValue)", in: client.fields, command: "import")
        }
        let plan = try await importPlan(text, format: format, key: options.key, base: base)
        let verbs = options.mode.dryRun ? ("create", "update", "unchanged") : ("created", "updated", "unchanged")
        if options.mode.dryRun {
            if options.mode.json {
                for entry in plan.entries {
                    let (verb, id) = entry.action.planned
                    try emitRow(entry.line, verb, id)
                }
            } else if !options.mode.quiet {
                try output.standardOutput("would " + plan.summary(verbs) + "\n")
            }
            return
        }
        narrate("Plan: " + plan.summary(("create", "update", "leave unchanged")) + ".", options.mode)
        try await write(plan, key: options.key, mode: options.mode, client: client)
        if !options.mode.json && !options.mode.quiet { try output.standardOutput(plan.summary(verbs) + "\n") }
    }

    // MARK: - Planning

    /// Every row read and checked, and matched to the projects that exist; any bad row stops it all (exit 65).
    private func importPlan(_ text: String, format: ImportFormat, key: [FieldMap.Word], base: Session)
        async throws -> ImportPlan
    {
        let client = base.client
        let (rows, unreadable) = ImportReader.rows(text, format: format)
        var problems = unreadable
        let checker = try await base.checker(command: "import")
        let columns = try await baseColumns(rows, format: format, checker: checker, problems: &problems)
        var inputs: [(line: Int, input: ProjectInput, cells: [BaseCell])] = []
        for row in rows where columns != nil {
            let cells = baseCells(row, columns: columns ?? [:], layout: checker.layout)
            switch cells {
            case .failure(let problem):
                problems.append(problem)
                continue
            case .success: break
            }
            switch ImportColumns.input(row, today: today).flatMap({ fitting($0, line: row.line, to: client.fields) }) {
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
                            timeZone: context.timeZone)
                        : FieldInput.read(json: cell.value, for: cell.field, today: today, timeZone: context.timeZone)
                    write[target] = try await checker.resolve(typed, for: cell.field, flag: "")
                }
            } catch let error as AppError {
                guard case .usage = error else { throw error }
                problems.append(ImportProblem(line: line, message: error.message))
                continue
            }
            guard let value = ImportPlan.key(of: write, key) else {
                let missing = key.filter { write[$0]?.stringValue == nil }.map(\.rawValue).joined(separator: ", ")
                problems.append(ImportPlan.problem(line, "no \(missing), which the key needs"))
                continue
            }
            if let earlier = firstLine[value] {
                problems.append(
                    ImportPlan.problem(
                        line, "the same \(key.map(\.rawValue).joined(separator: ", ")) as line \(earlier)"))
                continue
            }
            firstLine[value] = line
            writes.append((line, write, value))
        }
        let existing = try await projects(matching: writes.map(\.key), key, client)
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
                        ImportPlan.problem(
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
                    ImportPlan.problem(
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
    struct BaseCell {
        var field: BaseSchema.Field
        var value: JSONValue
        var isText: Bool
    }

    /// The base's fields the file's other columns name (any case), or nil when one names none, or a field tracker
    /// cannot write: that is a problem of the file, not of a row, and nothing is written.
    private func baseColumns(
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
    private func baseCells(_ row: ImportRow, columns: [String: BaseSchema.Field], layout: TableLayout) -> Result<
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
    private func fitting(_ input: ProjectInput, line: Int, to fields: FieldMap) -> Result<ProjectInput, ImportProblem> {
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
    private func projects(matching keys: [[String]], _ key: [FieldMap.Word], _ client: ProjectAPIClient) async throws
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

    // MARK: - Writing

    /// Writes the plan ten rows a request, with a progress line on a terminal; Ctrl-C stops it between requests.
    private func write(_ plan: ImportPlan, key: [FieldMap.Word], mode: WriteMode, client: ProjectAPIClient) async throws
    {
        let creates = plan.entries.compactMap { entry -> (Int, ProjectWrite)? in
            if case .create(let write) = entry.action { (entry.line, write) } else { nil }
        }
        let updates = plan.entries.compactMap { entry -> (Int, ProjectChange)? in
            if case .update(let project, let write) = entry.action {
                (entry.line, ProjectChange(id: project.id, write: write))
            } else {
                nil
            }
        }
        if mode.json {
            for entry in plan.entries {
                if case .unchanged(let project) = entry.action { try emitRow(entry.line, "unchanged", project.id) }
            }
        }
        let total = creates.count + updates.count
        let progress =
            mode.quiet || total == 0
            ? nil : status.map { ProgressLine(status: $0, label: "import", total: total, now: context.network.now) }
        context.interruption.stopBetweenRequests(
            notice: "tracker: stopping after the request in flight (Ctrl-C again to stop at once)…")
        var written = 0
        func record(_ lines: ArraySlice<Int>, _ projects: [Project], _ action: String) throws {
            if mode.json {
                for (line, project) in zip(lines, projects) { try emitRow(line, action, project.id) }
            }
            written += projects.count
            progress?.update(done: written)
            if context.interruption.isRequested { throw AppError.interrupted }
        }
        do {
            progress?.update(done: 0)
            var createdLines = creates.map(\.0)[...]
            try await client.upsertProjects(creates.map(\.1), mergingOn: key) { projects in
                try record(createdLines.prefix(projects.count), projects, "created")
                createdLines = createdLines.dropFirst(projects.count)
            }
            var updatedLines = updates.map(\.0)[...]
            try await client.updateProjects(updates.map(\.1)) { projects in
                try record(updatedLines.prefix(projects.count), projects, "updated")
                updatedLines = updatedLines.dropFirst(projects.count)
            }
            status?.clear()
        } catch let error as AppError {
            status?.clear()
            throw AppError.partialImport(error, written: written, total: total)
        }
    }

    /// One row of `--json`: `{"line", "id", "action"}`.
    private func emitRow(_ line: Int, _ action: String, _ id: String?) throws {
        try output.standardOutput(
            JSONValue.object([("line", .number(Double(line))), ("id", .string(or: id)), ("action", .string(action))])
                .serialized() + "\n")
    }

    /// The text to import: the file, or standard input when there is none or it is `-`.
    private func readImportText(_ file: String?) throws -> String {
        let data: Data
        if let file, file != "-" {
            data = try contents(ofFile: file, naming: file)
        } else {
            guard !context.isStdinTerminal else {
                throw AppError.usage("import reads a FILE, or rows piped to it; give a file name", command: "import")
            }
            data = context.readStandardInput()
        }
        guard let text = String(data: data, encoding: .utf8) else {
            // As for --notes-file: the file given is not what the command reads.
            throw AppError.usage(
                "\(file.map { $0 == "-" ? "stdin" : $0 } ?? "stdin") is not UTF-8 text; import reads UTF-8 CSV, NDJSON or JSON",
                command: "import")
        }
        return text
    }
}

extension ImportPlan {
    static func problem(_ line: Int, _ message: String) -> ImportProblem { ImportProblem(line: line, message: message) }
}
