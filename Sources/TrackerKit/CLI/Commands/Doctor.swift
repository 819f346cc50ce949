import Foundation

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
            try output.standardOutput(label.padding(toLength: 10, withPad: " ", startingAt: 0) + value + "\n")
        }
        switch Result(catching: { try loadConfiguration() }) {
        case .failure(let error):
            let error = error as? AppError ?? .configuration("\(error)", hint: nil)
            try report(.failed("configuration", error))
            for name in ["token", "table", "fields", "pace"] {
                try report(
                    DoctorCheck(name: name, error: error, detail: "\(name): not checked without a configuration"))
            }
        case .success(let configuration):
            if !json { try describe(configuration, line) }
            // The lines above already show the configuration; JSON has no such lines, so it gets the check.
            checks.append(DoctorCheck(name: "configuration", detail: "configuration read"))
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

    /// Which settings are in use: the file, the masked token and where it came from, the endpoint, base and table.
    private func describe(_ configuration: Configuration, _ line: (String, String) throws -> Void) throws {
        if let path = configuration.secretsPath {
            try line("secrets", "\(path) (mode \(configuration.secretsMode.map { String($0, radix: 8) } ?? "?"))")
        } else {
            try line("secrets", "none; everything comes from the environment")
        }
        let tokenSource =
            configuration.environmentKeys.contains("AIRTABLE_TOKEN") ? "AIRTABLE_TOKEN" : "the secrets file"
        try line("token", "\(configuration.maskedToken) (from \(tokenSource))")
        try line("endpoint", configuration.endpoint.absoluteString)
        try line("base", "\(configuration.baseID), table \"\(configuration.table)\"")
        if !configuration.fields.isTemplate {
            let renamed = FieldMap.Word.allCases.filter { configuration.fields[$0] != $0.templateName }
            try line(
                "fields", renamed.map { "\($0.rawValue) = \"\(configuration.fields[$0])\"" }.joined(separator: ", "))
        }
    }

    /// The token, the table, the table's fields, the pace and the secrets file, each checked whatever the others found.
    func doctorChecks(_ configuration: Configuration) async -> [DoctorCheck] {
        let client = makeClient(configuration: configuration)
        var checks: [DoctorCheck] = []
        switch await client.whoami() {
        case .success(let user): checks.append(DoctorCheck(name: "token", detail: "token accepted (user \(user))"))
        case .failure(let error): checks.append(.failed("token", error))
        }
        let schema = await client.schema()
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
        checks.append(fieldCheck(configuration.fields, table: configuration.table, schema: schema))
        checks.append(paceCheck(configuration))
        if let path = configuration.secretsPath, configuration.isSecretsFileReadableByOthers {
            let warning = String(ConfigurationLoader.readableWarning(path).dropFirst("warning: ".count))
            checks.append(.failed("secrets", .configuration(warning, hint: nil)))
        }
        return checks
    }

    /// Airtable allows 5 requests a second per base; more earns 30-second lockouts.
    private func paceCheck(_ configuration: Configuration) -> DoctorCheck {
        let pace = configuration.requestsPerSecond
        let shown = pace == pace.rounded() ? String(Int(pace)) : String(pace)
        guard pace <= 5 else {
            let text =
                "requestsPerSecond is \(shown), above Airtable's limit of 5 a second per base; expect 30-second lockouts"
            return .failed("pace", .configuration(text, hint: "Set \"requestsPerSecond\" to 5 or less."))
        }
        return DoctorCheck(name: "pace", detail: "pace \(shown) requests a second, within Airtable's 5")
    }

    /// Whether the table has every field tracker uses, with the right types; for missing ones, a suggested mapping.
    private func fieldCheck(_ map: FieldMap, table name: String, schema: Result<BaseSchema?, AppError>) -> DoctorCheck {
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
        let missing = FieldMap.Word.allCases.filter { table.field(named: map[$0]) == nil }
        let mistyped = FieldMap.Word.allCases.filter { word in
            table.field(named: map[word]).map { !word.acceptedTypes.contains($0.type) } ?? false
        }
        if missing.isEmpty && mistyped.isEmpty {
            return DoctorCheck(name: "fields", detail: "all \(FieldMap.Word.allCases.count) fields tracker uses exist")
        }
        var problems = missing.map { "no field \"\(map[$0])\" (tracker's \"\($0.rawValue)\")" }
        problems += mistyped.map {
            "\"\(map[$0])\" is a \(table.field(named: map[$0])!.type) field, not what tracker's \"\($0.rawValue)\" needs"
        }
        var check = DoctorCheck(
            name: "fields",
            error: missing.first.map { .missingField(word: $0.rawValue, field: map[$0], table: name) }
                ?? .configuration("the table's fields do not have the types tracker needs", hint: nil),
            detail: "fields: " + problems.joined(separator: "; "))
        check.notes = ["the table has: " + table.fields.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")]
        let suggestion = Self.suggestedMapping(for: missing, in: table, map: map)
        if !suggestion.isEmpty {
            check.notes.append(
                "suggested mapping for the secrets file: \"fields\": {"
                    + suggestion.map { "\"\($0.0.rawValue)\": \"\($0.1)\"" }.joined(separator: ", ") + "}")
        }
        return check
    }

    /// For each missing word, the unused field of a type it accepts whose name is closest to the template's.
    static func suggestedMapping(for missing: [FieldMap.Word], in table: BaseSchema.Table, map: FieldMap) -> [(
        FieldMap.Word, String
    )] {
        var taken = Set(FieldMap.Word.allCases.map { map[$0] })
        var mapping: [(FieldMap.Word, String)] = []
        for word in missing {
            let candidates = table.fields.filter { word.acceptedTypes.contains($0.type) && !taken.contains($0.name) }
            let best = candidates.min { a, b in
                Suggestion.distance(a.name.lowercased(), word.templateName.lowercased())
                    < Suggestion.distance(b.name.lowercased(), word.templateName.lowercased())
            }
            if let best {
                mapping.append((word, best.name))
                taken.insert(best.name)
            }
        }
        return mapping
    }
}

extension Result {
    /// The failure, if this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
