#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerNetwork

extension Doctor {
    /// The token, the table, the table's fields, the pace and the secrets file, each checked whatever the others found.
    func checks(_ configuration: Configuration, in setup: Setup) async -> [DoctorCheck] {
        // Each check reports its own failure: a Redis that refuses the password fails the Redis's check, and the
        // Airtable checks run without the team's budget, paced on this machine, passing or failing on their own.
        let surroundings = setup.surroundings(configuration)
        var airtable = configuration
        if configuration.redis != nil, surroundings.coordination.refusal() != nil { airtable.redis = nil }
        let client = setup.client(airtable)
        var checks: [DoctorCheck] = []
        switch await client.whoami() {
        case .success(let user):
            let who = [user.id, user.email].compactMap { $0 }.joined(separator: ", ")
            checks.append(DoctorCheck(name: "token", detail: "token accepted (user \(StandardErrorText.safe(who)))"))
        case .failure(let error): checks.append(.failed("token", error))
        }
        // What was remembered is said before it is replaced by what Airtable says now.
        let knowledge = BaseKnowledge(client: client, cache: surroundings.cache, now: surroundings.now)
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
        checks.append(Self.fieldCheck(configuration.fieldSettings, table: configuration.table, schema: schema))
        if case .success(let base?) = schema, let table = base.table(configuration.table) {
            checks.append(
                DoctorCheck(
                    name: "views",
                    detail: table.views.isEmpty
                        ? "the table has no saved views"
                        : "views for list --view: " + table.views.map { "\"\($0.name)\"" }.joined(separator: ", ")))
        }
        checks.append(Self.tasksCheck(configuration.tasks, table: configuration.table, schema: schema))
        checks.append(Self.filesCheck(configuration.images, table: configuration.table, schema: schema))
        checks.append(Self.cacheCheck(age: age, cache: surroundings.cache))
        if case .success = schema { _ = try? await knowledge.refreshed() }
        checks.append(Self.paceCheck(configuration, coordination: surroundings.coordination))
        checks.append(Self.monthCheck(configuration, surroundings: surroundings))
        // Checked last, so the processes it counts on the base's budget include doctor's own requests.
        let now = surroundings.now
        let sharing = configuration.redis.map { _ in
            surroundings.coordination.checkSharing(
                for: configuration.budgetOwner, wallClock: { now().timeIntervalSince1970 })
        }
        checks.append(SharingCheck.report(sharing, configuration))
        // Without a team's Redis there is no team's copy to speak of: the sharing check says how to set one.
        if configuration.redis != nil { checks.append(TeamCopyCheck.report(configuration, health: sharing)) }
        checks.append(await DeletionsCheck.run(airtable, client: client, surroundings: surroundings))
        if let signIn = SignInCheck.report(configuration) { checks.append(signIn) }
        if let path = configuration.secretsPath, configuration.isSecretsFileReadableByOthers {
            let warning = String(ConfigurationLoader.readableWarning(path).dropFirst("warning: ".count))
            checks.append(.failed("secrets", .configuration(warning, hint: nil)))
        }
        return checks
    }

    /// Whether the table has the fields the secrets file names, with types tracker can use; each template field it
    /// lacks is named, with the fields of a fitting type that could be mapped instead.
    private static func fieldCheck(_ settings: FieldSettings, table name: String, schema: Result<BaseSchema?, AppError>)
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
                let suggestion = suggestedMapping(for: [word], in: table, map: settings.assumed)
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
        let suggestion = suggestedMapping(for: unmentioned, in: table, map: map)
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
    package static func suggestedMapping(for missing: [FieldMap.Word], in table: BaseSchema.Table, map: FieldMap) -> [(
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
