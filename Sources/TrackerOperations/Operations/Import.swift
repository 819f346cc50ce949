import TrackerAPI
import TrackerModel

/// `tracker import`: creates and updates projects from CSV or JSON; safe to run again.
package struct Import: Operation, Equatable {
    package static let spec = CommandSpec(
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

    /// The file to read (the face reads it into `text`); nil or `-` for standard input.
    package var file: String? = nil
    /// The rows to import, as the face read them.
    package var text = ""
    /// The format; nil takes it from the file's extension, else from what the text looks like.
    package var format: ImportFormat? = nil
    /// The fields that match a row to an existing project: one to three of name, due, category.
    package var key: [FieldMap.Word] = [.name]
    package var mode = WriteMode()

    package var opening: SessionOpening { .schemaFirst }

    /// Each option given.
    package init(
        file: String? = nil, text: String = "", format: ImportFormat? = nil, key: [FieldMap.Word] = [.name],
        mode: WriteMode = WriteMode()
    ) {
        (self.file, self.text, self.format, self.key, self.mode) = (file, text, format, key, mode)
    }

    /// What the face hears while an import runs.
    package enum Event {
        /// Every row checked and planned; nothing written yet.
        case planned(ImportPlan)
        /// A request's projects written: the rows' lines, the projects as Airtable returned them, and the action
        /// ("created" or "updated"). The face may throw (an interruption) to stop before the next request.
        case written(lines: ArraySlice<Int>, projects: [Project], action: String)
    }

    package func run(in session: Session) async throws -> ImportPlan { try await run(in: session) { _ in } }

    /// Reads the rows, checks every one, plans create / update / unchanged from Airtable's current state, then (unless
    /// a dry run) writes ten rows a request. New projects go as upserts on the key, so running the same import again,
    /// after any failure or a kill, finishes the job without adding a project twice.
    package func run(in session: Session, _ hear: (Event) throws -> Void) async throws -> ImportPlan {
        let format = format ?? file.flatMap(ImportFormat.implied(byPath:)) ?? .sniffed(text)
        for word in key {
            _ = try session.client.fields.required(word, for: "--key \(word.rawValue)", command: "import")
        }
        let plan = try await plan(text, format: format, in: session)
        try hear(.planned(plan))
        guard !mode.dryRun else { return plan }
        try await write(plan, in: session, hear)
        return plan
    }

    /// Writes the plan ten rows a request. An error on the way says how many rows were written before it.
    private func write(_ plan: ImportPlan, in session: Session, _ hear: (Event) throws -> Void) async throws {
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
        let known = plan.entries.compactMap { entry -> Project? in
            if case .update(let project, _) = entry.action { project } else { nil }
        }
        var written = 0
        func record(_ lines: ArraySlice<Int>, _ projects: [Project], _ action: String) throws {
            written += projects.count
            try hear(.written(lines: lines, projects: projects, action: action))
        }
        do {
            // Upserts on the key and updates by id: either may go out again, should the import be run again.
            try await session.sending { writes in
                var createdLines = creates.map(\.0)[...]
                try await writes.upsertProjects(creates.map(\.1), mergingOn: key) { projects in
                    try record(createdLines.prefix(projects.count), projects, "created")
                    createdLines = createdLines.dropFirst(projects.count)
                }
                var updatedLines = updates.map(\.0)[...]
                try await writes.updateProjects(updates.map(\.1), known: known) { projects in
                    try record(updatedLines.prefix(projects.count), projects, "updated")
                    updatedLines = updatedLines.dropFirst(projects.count)
                }
            }
        } catch let error as AppError {
            throw AppError.partialImport(error, written: written, total: creates.count + updates.count)
        }
    }
}

extension Import {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
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
