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

/// `tracker doctor`: checks the configuration, the token, and the table's fields.
struct Doctor: Command {
    static let spec = CommandSpec(
        name: "doctor", summary: "Check the configuration, the token, and the table's fields.",
        usage: ["tracker doctor [--json]"],
        flags: [FlagSpec(name: "--json", help: "one object with a checks array (name, ok, detail)")],
        examples: ["tracker doctor", "tracker doctor --json | jq '.checks[] | select(.ok | not)'"],
        notes: [
            "Every check runs, even after one fails; it exits with the code of the first failing check, as any command",
            "would, and 0 only when all pass. With the team's Redis (\"redis\" or TRACKER_REDIS_URL), the sharing check",
            "connects, authenticates and runs the scripts there; the Airtable checks run without it if it fails. The",
            "pace check says when a 429 slowed every process for a while.",
        ])

    var json = false

    func run(_ runner: Runner) async throws { try await runner.doctor(json: json) }
}

extension Doctor {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(json: scanned.has("--json"))
    }
}

/// One finding of `tracker doctor`.
struct DoctorCheck {
    var name: String
    /// The failure, when the check failed.
    var error: AppError?
    var detail: String
    /// Lines that explain the finding (the table's fields, a suggested mapping).
    var notes: [String] = []
    /// Whether the check could not run (which is not a failure).
    var isSkipped = false

    var ok: Bool { error == nil }

    var label: String { isSkipped ? "skipped" : ok ? "ok" : "failed" }

    /// A check that failed with `error`, said as `name: message`.
    static func skipped(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, detail: detail, isSkipped: true)
    }

    /// A check that failed with `error`, said as `name: message`.
    static func failed(_ name: String, _ error: AppError) -> DoctorCheck {
        DoctorCheck(name: name, error: error, detail: "\(name): \(error.message)")
    }
}

extension Runner {
    /// `tracker doctor`: every check runs even after one fails; the human view prints each as it is found, `--json`
    /// one object with a `checks` array. It fails with the first failing check's exit code.
    func doctor(json: Bool) async throws {
        var checks: [DoctorCheck] = []
        func report(_ check: DoctorCheck) throws {
            checks.append(check)
            guard !json else { return }
            try line(check.label, check.detail)
            for note in check.notes { try line("", note) }
        }
        func line(_ label: String, _ value: String) throws {
            // Names from the base (fields, views, the table) are shown with their control characters made visible.
            try output.standardOutput(
                TextCells.fit(label, 10) + StandardErrorText.safe(value) + "\n")
        }
        switch Result(catching: { try loadConfiguration() }) {
        case .failure(let error):
            let error = error as? AppError ?? .configuration("\(error)", hint: nil)
            try report(.failed("configuration", error))
            for name in ["token", "table", "fields", "pace", "sharing", "deletions"] {
                try report(
                    DoctorCheck(name: name, error: error, detail: "\(name): not checked without a configuration"))
            }
        case .success(let configuration):
            if !json { try describe(configuration, line) }
            // The lines above already show the configuration; JSON has no such lines, so it gets the check.
            checks.append(
                DoctorCheck(
                    name: "configuration",
                    detail: "configuration read" + (Self.profileLine(configuration).map { "; profile \($0)" } ?? "")))
            for check in await doctorChecks(configuration) { try report(check) }
        }
        if json {
            let objects = checks.map { check in
                let detail = ([check.detail] + check.notes).joined(separator: "; ")
                return JSONValue.object([
                    ("name", .string(check.name)), ("ok", .bool(check.ok)), ("detail", .string(detail)),
                ])
            }
            try output.standardOutput(JSONValue.object([("checks", .array(objects))]).serialized() + "\n")
        }
        if let failure = checks.compactMap(\.error).first { throw failure }
    }

    /// "work (others: client-x, personal)", or nil for a file without profiles.
    static func profileLine(_ configuration: Configuration) -> String? {
        guard let profile = configuration.profile else { return nil }
        let others = configuration.profiles.filter { $0 != profile }
        return "\"\(profile)\""
            + (others.isEmpty ? "" : " (others: \(others.map { "\"\($0)\"" }.joined(separator: ", ")))")
    }

    /// Which settings are in use: the file, the masked token and where it came from, the endpoint, base and table.
    private func describe(_ configuration: Configuration, _ line: (String, String) throws -> Void) throws {
        if let path = configuration.secretsPath {
            try line("secrets", "\(path) (mode \(configuration.secretsMode.map { String($0, radix: 8) } ?? "?"))")
        } else {
            try line("secrets", "none; everything comes from the environment")
        }
        if let profile = Self.profileLine(configuration) { try line("profile", profile) }
        try line("token", "\(configuration.maskedToken) (from \(configuration.tokenOrigin))")
        try line("endpoint", configuration.endpoint.absoluteString)
        try line("base", "\(configuration.baseID), table \"\(configuration.table)\"")
        let settings = configuration.fieldSettings
        if !settings.isTemplate {
            var said = FieldMap.Word.allCases.compactMap { word -> String? in
                switch settings.words[word] {
                case .named(let name)?: "\(word.rawValue) = \"\(name)\""
                case .absent?: "\(word.rawValue) = none"
                case nil: nil
                }
            }
            if let select = settings.completionSelect {
                said.append(
                    "complete = \"\(select.field)\" is \"\(select.done)\""
                        + (select.open.map { ", reopen sets \"\($0)\"" } ?? ""))
            }
            try line("fields", said.joined(separator: ", "))
        }
    }

    /// The token, the table, the table's fields, the pace and the secrets file, each checked whatever the others found.
    func doctorChecks(_ configuration: Configuration) async -> [DoctorCheck] {
        // Each check reports its own failure: a Redis that refuses the password fails the Redis's check, and the
        // Airtable checks run without the team's budget, paced on this machine, passing or failing on their own.
        var airtable = configuration
        if configuration.redis != nil, coordination(configuration).refusal() != nil { airtable.redis = nil }
        let client = makeClient(configuration: airtable)
        var checks: [DoctorCheck] = []
        switch await client.whoami() {
        case .success(let user):
            let who = [user.id, user.email].compactMap { $0 }.joined(separator: ", ")
            checks.append(DoctorCheck(name: "token", detail: "token accepted (user \(StandardErrorText.safe(who)))"))
        case .failure(let error): checks.append(.failed("token", error))
        }
        // What was remembered is said before it is replaced by what Airtable says now.
        let knowledge = BaseKnowledge(client: client, cache: context.cacheDirectory, now: context.now)
        let age = knowledge.rememberedAge()
        let schema = await client.schemaBody().flatMap { body in
            Result { () throws(AppError) -> BaseSchema? in
                try body.map { body throws(AppError) in try BaseSchema(airtable: body) }
            }
        }
        var table = DoctorCheck(name: "table", detail: "base and table reachable")
        if case .failure(let error) = await client.probeTable() {
            table = .failed("table", error)
            if case .tableAccessDenied = error, case .success(let base?) = schema,
                base.table(configuration.table) == nil
            {
                table.notes = [
                    "this base has the tables: " + base.tables.map { "\"\($0.name)\"" }.joined(separator: ", ")
                ]
            }
        }
        checks.append(table)
        checks.append(fieldCheck(configuration.fieldSettings, table: configuration.table, schema: schema))
        if case .success(let base?) = schema, let table = base.table(configuration.table) {
            checks.append(
                DoctorCheck(
                    name: "views",
                    detail: table.views.isEmpty
                        ? "the table has no saved views"
                        : "views for list --view: " + table.views.map { "\"\($0.name)\"" }.joined(separator: ", ")))
        }
        checks.append(tasksCheck(configuration.tasks, table: configuration.table, schema: schema))
        checks.append(filesCheck(configuration.images, table: configuration.table, schema: schema))
        checks.append(cacheCheck(age: age))
        if case .success = schema { _ = try? await knowledge.refreshed() }
        checks.append(paceCheck(configuration))
        // Checked last, so the processes it counts on the base's budget include doctor's own requests.
        let now = context.now
        let sharing = configuration.redis.map { _ in
            coordination(configuration).checkSharing(
                for: configuration.budgetOwner, wallClock: { now().timeIntervalSince1970 })
        }
        checks.append(SharingCheck.report(sharing, configuration))
        checks.append(await DeletionsCheck.run(airtable, client: client, runner: self))
        if let path = configuration.secretsPath, configuration.isSecretsFileReadableByOthers {
            let warning = String(ConfigurationLoader.readableWarning(path).dropFirst("warning: ".count))
            checks.append(.failed("secrets", .configuration(warning, hint: nil)))
        }
        return checks
    }

    /// Whether the table has the fields the secrets file names, with types tracker can use; each template field it
    /// lacks is named, with the fields of a fitting type that could be mapped instead.
    private func fieldCheck(_ settings: FieldSettings, table name: String, schema: Result<BaseSchema?, AppError>)
        -> DoctorCheck
    {
        guard case .success(let base) = schema else {
            return .failed("fields", schema.failure!)
        }
        guard let base else {
            return DoctorCheck(
                name: "fields", detail: "field check: the token lacks schema.bases:read", isSkipped: true)
        }
        guard let table = base.table(name) else {
            return DoctorCheck(
                name: "fields", detail: "field check: the base has no table \"\(name)\"", isSkipped: true)
        }
        let listing = "the table has: " + table.fields.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
        let map: FieldMap
        do {
            map = try settings.resolve(in: table)
        } catch {
            var check = DoctorCheck.failed("fields", error)
            check.notes = [listing] + [error.hint].compactMap { $0 }
            if case .missingField(let word, _, _) = error, let word = FieldMap.Word(rawValue: word) {
                let suggestion = Self.suggestedMapping(for: [word], in: table, map: settings.assumed)
                if !suggestion.isEmpty {
                    check.notes.append(
                        "suggested: \"fields\": {"
                            + suggestion.map { "\"\($0.0.rawValue)\": \($0.1)" }.joined(separator: ", ") + "}")
                }
            }
            return check
        }
        var completion = ""
        if case .select(let field, let done, _)? = map.completion {
            completion = "; complete when \"\(field)\" is \"\(done)\""
        }
        let absent = map.absent
        guard !absent.isEmpty else {
            return DoctorCheck(
                name: "fields", detail: "all \(FieldMap.Word.allCases.count) fields tracker uses exist\(completion)")
        }
        let unmentioned = absent.filter { settings.words[$0] == nil }
        let named = absent.map { word in
            settings.words[word] == .absent
                ? "\(word.rawValue) (none, as \"fields\" says)" : "\(word.rawValue) (no \"\(word.templateName)\")"
        }
        var check = DoctorCheck(
            name: "fields",
            detail: "fields: the base has no " + named.joined(separator: ", ")
                + "; flags and filters that need them are refused\(completion)")
        check.notes = [listing]
        let suggestion = Self.suggestedMapping(for: unmentioned, in: table, map: map)
        if !suggestion.isEmpty {
            check.notes.append(
                "if a field was renamed, map it: \"fields\": {"
                    + suggestion.map { "\"\($0.0.rawValue)\": \($0.1)" }.joined(separator: ", ") + "}")
        }
        if !unmentioned.isEmpty {
            check.notes.append(
                "to say the base has none: \"fields\": {"
                    + unmentioned.map { "\"\($0.rawValue)\": null" }.joined(separator: ", ") + "}")
        }
        return check
    }

    /// For each missing word, the unused field of a type it accepts that fits best: for completion a select with a
    /// "done"-like choice (then given as the select object) or a checkbox, for the category a select whose choices
    /// look like the template's, else the name closest to the template's.
    static func suggestedMapping(for missing: [FieldMap.Word], in table: BaseSchema.Table, map: FieldMap) -> [(
        FieldMap.Word, String
    )] {
        var taken = Set(FieldMap.Word.allCases.compactMap { map[$0] })
        var mapping: [(FieldMap.Word, String)] = []
        let doneWords = ["done", "complete", "completed", "finished", "closed"]
        for word in missing {
            let candidates = table.fields.filter { word.acceptedTypes.contains($0.type) && !taken.contains($0.name) }
            func bonus(_ field: BaseSchema.Field) -> Int {
                switch word {
                case .complete:
                    // A select with a "done" choice is what replaced the checkbox; another checkbox only may be.
                    if field.choices.contains(where: { doneWords.contains($0.lowercased()) }) { return 0 }
                    return field.type == "checkbox" ? 1 : 100
                case .category:
                    let known = Set(TemplateCategories.template.map { $0.lowercased() })
                    return field.choices.contains { known.contains($0.lowercased()) } ? 0 : 10
                default: return 0
                }
            }
            let best = candidates.min { a, b in
                (bonus(a), Suggestion.distance(a.name.lowercased(), word.templateName.lowercased()))
                    < (bonus(b), Suggestion.distance(b.name.lowercased(), word.templateName.lowercased()))
            }
            guard let best, bonus(best) < 100 else { continue }
            taken.insert(best.name)
            if word == .complete, best.type == "singleSelect" {
                let done = best.choices.first { doneWords.contains($0.lowercased()) } ?? "Done"
                mapping.append((word, "{\"field\": \"\(best.name)\", \"done\": \"\(done)\"}"))
            } else {
                mapping.append((word, "\"\(best.name)\""))
            }
        }
        return mapping
    }
}

/// The Project tracker template's categories, which a renamed category field most likely still offers.
private enum TemplateCategories {
    static let template = CommandSpec.categoryChoices
}

extension Result {
    /// The failure, if this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension Runner {
    /// Which table holds the tasks and which of its fields tracker uses, as task commands will find them.
    func tasksCheck(_ settings: TasksSettings, table: String, schema: Result<BaseSchema?, AppError>) -> DoctorCheck {
        if case .absent = settings { return .skipped("tasks", "no Tasks table: the secrets file says \"tasks\": null") }
        guard case .success(let base?) = schema else {
            return .skipped("tasks", "tasks check: the token lacks schema.bases:read")
        }
        do {
            guard let tasks = try TaskLayout.resolve(settings, projects: base.table(table), schema: base) else {
                return .skipped(
                    "tasks", "the base has no Tasks table (none linked from the projects, none named \"Tasks\")")
            }
            let used = TaskWord.allCases.compactMap { word in tasks.fields[word].map { "\(word.rawValue) \"\($0)\"" } }
            var check = DoctorCheck(
                name: "tasks",
                detail: "Tasks table \"\(StandardErrorText.safe(tasks.name))\": " + used.joined(separator: ", "))
            let absent = TaskWord.allCases.filter { tasks.fields[$0] == nil }
            if !absent.isEmpty {
                check.notes.append(
                    "absent: " + absent.map { "\($0.rawValue) (\($0.templateName))" }.joined(separator: ", "))
            }
            if tasks.projectsLink == nil {
                check.notes.append(
                    "the projects have no link to it: a project's tasks are found by the tasks' own link")
            }
            return check
        } catch {
            return .failed("tasks", error as? AppError ?? .configuration("\(error)", hint: nil))
        }
    }

    /// Which attachment field `attach` and `files` use, as they will pick it.
    func filesCheck(_ images: FieldSettings.Setting?, table: String, schema: Result<BaseSchema?, AppError>)
        -> DoctorCheck
    {
        guard case .success(let base?) = schema, let projects = base.table(table) else {
            return .skipped("files", "files check: the token lacks schema.bases:read")
        }
        if case .absent? = images {
            return .skipped("files", "no attachment field: the secrets file says \"images\": null")
        }
        let attachments = projects.fields.filter { $0.type == "multipleAttachments" }.map(\.name)
        guard !attachments.isEmpty else { return .skipped("files", "the table has no attachment field") }
        do {
            let field = try AttachmentFieldChoice.pick(
                flag: nil, mapped: images, template: "Project images", table: projects, tableName: table,
                command: "doctor")
            return DoctorCheck(name: "files", detail: "attach and files use \"\(StandardErrorText.safe(field.name))\"")
        } catch {
            // Several attachment fields and none chosen: not an error until a command needs one.
            var check = DoctorCheck.skipped(
                "files",
                "\(attachments.count) attachment fields and none chosen: attach and files need --field NAME")
            check.notes.append(
                "To pick one for good, add to \"fields\" in the secrets file: \"images\": \"<one of "
                    + attachments.map { "\"\(StandardErrorText.safe($0))\"" }.joined(separator: ", ") + ">\"")
            return check
        }
    }
}
