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

/// `tracker show`: one project, by id or name, as a human view or as JSON.
struct Show: Command {
    static let spec = CommandSpec(
        name: "show", summary: "Show every field of one project, by id or name.",
        usage: ["tracker show ID|NAME [--json]"], positional: "ID|NAME", arguments: .projects,
        flags: [
            FlagSpec(name: "--json", help: "print the project object as JSON"),
            FlagSpec(
                name: "--comments",
                help: "also the newest comments, read beside the record (with --json, up to 10 under \"comments\")"),
        ],
        examples: [
            "tracker show rec3g0Xxmw2rw3scs", "tracker show \"CMCA brand identity\"", "tracker show \"$id\" --json",
        ],
        notes: [CommandSpec.namingNote])

    var target: String
    var json = false
    /// Whether the newest comments are read even where the view would not end with them (JSON, a pipe).
    var comments = false

    func run(_ runner: Runner) async throws { try await runner.show(self) }
}

extension Show {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        let target = try scanned.projectTarget()
        try scanned.rejectPositionals(allowed: 1)
        self.init(target: target, json: scanned.has("--json"), comments: scanned.has("--comments"))
    }
}

extension Runner {
    /// `tracker show`: one project, by id or name, as a human view or as JSON. The names of the records it links to
    /// come from memory; a linked table not yet remembered is read in the same round trip as the project.
    fileprivate func show(_ options: Show) async throws {
        // Cold, the schema read goes out beside the record's (and the template's linked names): one round trip.
        let prepared = try await prepareBase(readingBeside: true)
        // The Tasks table's records are read whole below, so not their names alone.
        let tasksTable = prepared.layout.tasks.map { [$0.route] } ?? []
        // JSON gives the clients' names beside their ids too, read the same way.
        async let read = namesReadBeside(prepared, skipping: Set(tasksTable))
        // On a terminal the newest comments end the view: by id, read beside the record.
        let wantsComments = options.comments || (!options.json && output.isStdoutTerminal)
        let commentLimit = options.json ? Self.commentsInJSON : Self.commentsShown + 1
        let byID = ProjectAPIClient.looksLikeRecordID(options.target)
        async let early =
            wantsComments && byID ? prepared.client.comments(on: options.target, limit: commentLimit) : nil
        // A typed name lets the project's tasks be read beside its record: narrowed on Airtable by that name (a link
        // is names inside a formula) and kept here only if the record's own Tasks field lists them.
        // By id, the name a listing remembered for it does the same (checked the same way against the record).
        let knownName = byID ? prepared.rememberedName(ofProject: options.target) : options.target
        async let tasksBeside: [ProjectTask]? =
            if let knownName { tasksNamed(knownName, layout: prepared.layout.tasks, base: prepared) } else { nil }
        let found = try await ProjectNaming(client: prepared.client, forgivesWords: true).resolve(options.target)
        var base = prepared
        base.layout = try await prepared.confirmedLayout()
        let tasks = try await tasks(of: found, read: await tasksBeside, base: base)
        var project = found
        base.rememberNames([project.name ?? ""], ids: [(project.id, project.name ?? "")], replacing: false)
        let comments: Result<[RecordComment], AppError>? =
            if let early = await early, project.id == options.target {
                early
            } else if wantsComments {
                await base.client.comments(on: project.id, limit: commentLimit)
            } else {
                nil
            }
        if let tasks, let notes = context.notes {
            let rows = TaskRows(tasks, projects: [project.id: project], today: today)
            notes.tasks = tasks.compactMap { try? JSONParser.parse(rows.json($0)) }
        }
        if options.json {
            var text = project.jsonText(today: today, tasks: tasks.map(TaskProgress.init))
            // Additive: "clients" stays the ids; "clientNames" gives each one's name (null where it cannot be read).
            if !project.clients.isEmpty {
                // The clients alone: the other links' names are not part of the JSON.
                var clientsOnly = project
                clientsOnly.otherFields = []
                let names = await linkedNames(of: clientsOnly, in: linkedTables(base), base: base, known: await read)
                text.removeLast()
                text +=
                    ",\"clientNames\":"
                    + JSONValue.array(project.clients.map { JSONValue.string(or: names[$0]) }).serialized() + "}"
            }
            if options.comments {
                // Without the comments scope the project is shown all the same, as on a terminal.
                let newest = (try? comments?.get()) ?? []
                text.removeLast()
                text += ",\"comments\":" + JSONValue.array(newest.map(\.object)).serialized() + "}"
            }
            try output.standardOutput(text + "\n")
            return
        }
        // The tasks are listed whole below; their link is not shown again as names.
        if tasks != nil, let link = base.layout.tasks?.projectsLink {
            project.otherFields.removeAll { $0.name == link }
        }
        let recordNames = await linkedNames(of: project, in: linkedTables(base), base: base, known: await read)
        let formatter = FieldFormatter(table: base.layout.table, timeZone: context.timeZone, recordNames: recordNames)
        // The base's own fields in the table's order (every one, empty or not), else as the record has them.
        let values = Dictionary(project.otherFields.map { ($0.name, $0.value) }) { first, _ in first }
        let listed = tasks == nil ? nil : base.layout.tasks?.projectsLink
        let shown =
            base.layout.table?.fields.map(\.name).filter { !base.layout.fields.isTrackerField($0) && $0 != listed }
            ?? project.otherFields.map(\.name)
        let others = shown.map { ($0, formatter.text(values[$0], field: $0)) }
        let width = output.isStdoutTerminal ? output.terminalWidth : nil
        let view = ProjectView(today: today, style: style, width: width, timeZone: context.timeZone)
        try output.standardOutput(
            view.render(
                project, clientNames: recordNames, otherFields: others, absent: Set(base.layout.fields.absent),
                address: base.layout.table.map {
                    WebAddress.record(baseID: base.configuration.baseID, tableID: $0.id, recordID: project.id)
                }))
        if let tasks {
            let rows = TaskRows(tasks, projects: [project.id: project], today: today)
            let unicode = output.isStdoutTerminal && TimelineChart.Glyphs.localeIsUTF8(context.environment)
            let heading = "\n" + style.bold("Tasks") + "  " + (tasks.isEmpty ? "none" : TaskProgress(tasks).text) + "\n"
            try output.standardOutput(heading + rows.rows(width: width ?? 80, unicode: unicode))
        }
        // Without the comments scope (or when they cannot be read) the project is shown all the same.
        if case .success(let newest)? = comments, !newest.isEmpty {
            try output.standardOutput(commentsEnding(newest, target: options.target))
        }
    }

    static let commentsShown = 3
    static let commentsInJSON = 10

    /// Tasks that may be `name`'s, read beside the project's own read; nil when there is no Tasks table or the read
    /// fails (the project's tasks are then read by id).
    private func tasksNamed(_ name: String, layout: TaskLayout?, base: Session) async -> [ProjectTask]? {
        guard let layout, let link = layout.fields[.project] else { return nil }
        let formula = "FIND(LOWER(\(Formula.literal(name))), LOWER(\(Formula.field(link))))"
        return try? await base.client.tasks(in: layout.client, matching: formula).get()
    }

    /// The project's tasks, in the order its Tasks field lists them: those read beside kept when the record lists them,
    /// the rest read by id; nil when the base has no Tasks table or the projects no link to it.
    private func tasks(of project: Project, read: [ProjectTask]?, base: Session) async throws -> [ProjectTask]? {
        guard let layout = base.layout.tasks, let ids = base.taskIDs(of: project, in: layout) else { return nil }
        let byID = Dictionary((read ?? []).map { ($0.id, $0) }) { first, _ in first }
        let missing = ids.filter { byID[$0] == nil }
        var found = byID
        if !missing.isEmpty {
            for task in try await base.client.tasks(in: layout.client, ids: missing).get() { found[task.id] = task }
        }
        return ids.compactMap { found[$0] }
    }

    /// The newest comments, oldest of them first, and where to read the rest.
    private func commentsEnding(_ newest: [RecordComment], target: String) -> String {
        let shown = Array(newest.prefix(Self.commentsShown).reversed())
        let more = newest.count > Self.commentsShown
        let quoted = target.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" }) ? "\"\(target)\"" : target
        var text =
            "\n" + style.bold("Comments")
            + (more ? style.dim("  the \(shown.count) newest; all: tracker comments \(TextCells.folded(quoted))") : "")
            + "\n"
        let view = CommentView(
            now: context.now(), zone: context.timeZone, today: today, style: style, width: output.terminalWidth ?? 80)
        text += view.render(shown)
        return text
    }

    /// The names of the records of the linked tables not yet remembered, by id: each table read whole, beside the
    /// project's read (cold, the template's Clients and Tasks).
    func namesReadBeside(_ base: Session, skipping: Set<String> = []) async -> [String: String] {
        let unread = linkedTables(base).filter {
            !skipping.contains($0.key) && base.knowledge.recordNames(in: $0.key).isEmpty
        }
        let records = await base.knowledge.readNames(
            unread.map {
                .init(table: $0.key, primaryField: $0.value, formula: "TRUE()", limit: BaseKnowledge.linkedNamesRead)
                // One page at most beside the record, never a sequence of pages; the few names it lacks are read by
                // id afterwards (`linkedNames`).
            })
        return Dictionary(records.compactMap { record in record.name.map { (record.id, $0) } }) { first, _ in first }
    }

    /// The tables the projects table links to (by id, or the template's Clients without the schema), each with its
    /// primary field.
    func linkedTables(_ base: Session) -> [String: String] {
        guard let table = base.layout.table else {
            var tables = base.layout.fields[.client] == nil ? [:] : ["Clients": "Name"]
            // Cold, the schema is on its way: the template's other linked table is read beside it too, so a project
            // with tasks is shown in one round trip (a base without that table answers 404, which costs nothing).
            if base.inFlight != nil { tables["Tasks"] = "Name" }
            return tables
        }
        var tables: [String: String] = [:]
        for field in table.fields where field.type == "multipleRecordLinks" {
            guard let id = field.linkedTableID, let linked = base.layout.schema?.table(id),
                let primary = linked.primaryField
            else { continue }
            tables[linked.id] = primary.name
        }
        return tables
    }

    /// Names for the records `project` links to: remembered ones, and any other read now by id; ids stay ids where
    /// that fails.
    func linkedNames(of project: Project, in tables: [String: String], base: Session, known: [String: String] = [:])
        async -> [String: String]
    {
        var wanted: [String: [String]] = [:]
        if let clientTable = base.layout.clientTableID ?? (tables["Clients"] != nil ? "Clients" : nil) {
            wanted[clientTable, default: []] += project.clients
        }
        for field in project.otherFields {
            guard let id = base.layout.table?.field(named: field.name)?.linkedTableID else { continue }
            wanted[id, default: []] += field.value.arrayValue?.compactMap(\.stringValue) ?? []
        }
        var names: [String: String] = [:]
        var missing: [BaseKnowledge.NamesWanted] = []
        for (table, ids) in wanted {
            let remembered = base.knowledge.recordNames(in: table).merging(known) { first, _ in first }
            for id in ids { if let name = remembered[id] { names[id] = name } }
            let unknown = Array(Set(ids.filter { remembered[$0] == nil })).sorted()
            if !unknown.isEmpty, let primary = tables[table] {
                let formula = Formula.any(unknown.map(Formula.recordID(is:)))
                missing.append(.init(table: table, primaryField: primary, formula: formula, limit: 100))
            }
        }
        for record in await base.knowledge.readNames(missing) { if let name = record.name { names[record.id] = name } }
        return names
    }
}
