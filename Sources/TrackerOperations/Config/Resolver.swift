#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// The settings in force for one profile of one file and the environment, turned into a Configuration.
package struct Resolver {
    package let file: SecretsFile?
    package let profile: String?
    package let environment: [String: String]
    /// The paths looked in, for the message when there is no file.
    package let searched: [String]
    /// The settings in force: the profile's over the file's top level, merged once (every setting reads them).
    package let values: [SecretsKey: SecretsValue]

    package init(file: SecretsFile?, profile: String?, environment: [String: String], searched: [String]) {
        self.file = file
        self.profile = profile
        self.environment = environment
        self.searched = searched
        values = file?.settings(of: profile) ?? [:]
    }

    package var origin: String {
        guard let file else { return "the environment" }
        return profile.map { "profile \"\($0)\" of \(file.path)" } ?? file.path
    }

    package func resolve() -> Result<Configuration, AppError> {
        Result {
            var usedEnvironment: [String] = []
            func string(_ key: SecretsKey) throws -> String? {
                if let value = ConfigurationLoader.environmentValue(of: key, in: environment) {
                    usedEnvironment.append(key.environmentVariable!)
                    return value
                }
                switch values[key] {
                case nil: return nil
                case .string(let value): return value
                default: throw AppError.configuration("\"\(key.rawValue)\" in \(origin) must be a string", hint: nil)
                }
            }
            func required(_ key: SecretsKey) throws -> String {
                guard let value = try string(key), !value.trimmingWhitespace().isEmpty else {
                    throw missing(key)
                }
                return value
            }
            if values[.token] != nil && values[.tokenCommand] != nil {
                throw AppError.configuration("\(origin) has both \"token\" and \"tokenCommand\"; keep one", hint: nil)
            }
            var tokenOrigin = "the secrets file"
            let token: String
            // AIRTABLE_TOKEN wins over both, so the command is not run when the environment gives the token.
            if ConfigurationLoader.environmentValue(of: .token, in: environment) != nil || values[.tokenCommand] == nil
            {
                token = try required(.token)
                if usedEnvironment.contains("AIRTABLE_TOKEN") { tokenOrigin = "AIRTABLE_TOKEN" }
            } else {
                let command = try tokenCommand()
                token = try TokenCommand.run(command).get()
                tokenOrigin = "tokenCommand (\(TokenCommand.display(command)))"
            }
            let baseID = try required(.baseId)
            // As init defaults it: a cron host set up with the environment alone needs no AIRTABLE_TABLE either.
            let table =
                try string(.table).flatMap { $0.trimmingWhitespace().isEmpty ? nil : $0 }
                ?? Configuration.templateTable
            try ConfigurationLoader.check(token: token, baseID: baseID, origin: origin)
            var configuration = Configuration(
                token: token, baseID: baseID, table: table,
                endpoint: try ConfigurationLoader.endpoint(try string(.endpoint)) ?? Configuration.defaultEndpoint,
                requestsPerSecond: try number(
                    .requestsPerSecond, default: Configuration.defaultRequestsPerSecond, range: 0.1...10000),
                timeoutSeconds: try whole(
                    .timeoutSeconds, default: Configuration.defaultTimeoutSeconds, range: 1...3600),
                retryBudgetSeconds: try whole(
                    .retryBudgetSeconds, default: Configuration.defaultRetryBudgetSeconds, range: 0...86400),
                fieldSettings: try fieldSettings(), tasks: try tasksSettings(), images: try imagesSetting(),
                secretsPath: file?.path, secretsMode: file?.mode, environmentKeys: usedEnvironment,
                profile: profile, profiles: file?.profileNames ?? [], tokenOrigin: tokenOrigin)
            configuration.redis = try redis(string)
            try teamCopy(into: &configuration)
            try plan(into: &configuration)
            try serve(into: &configuration)
            configuration.journalBestEffort = try journalBestEffort()
            configuration.approvals = try approvals()
            return configuration
        }.mapError { $0 as? AppError ?? .configuration("\($0)", hint: nil) }
    }

    /// `"journal": "required"` (the default) or `"best-effort"`.
    private func journalBestEffort() throws -> Bool {
        switch values[.journal] {
        case nil, .null?, .string("required")?: return false
        case .string("best-effort")?: return true
        default:
            throw AppError.configuration(
                "\"journal\" in \(origin) must be \"required\" or \"best-effort\"", hint: nil)
        }
    }

    /// `"assistants": {"approve": ["delete", "update"]}`: the kinds of assistant writes that wait for a person.
    private func approvals() throws -> ApprovalPolicy? {
        guard let given = values[.assistants], given != .null else { return nil }
        let problem = AppError.configuration(
            "\"assistants\" in \(origin) must be like {\"approve\": [\"delete\", \"update\"]}",
            hint: "The kinds: \(ApprovalPolicy.words.map { "\"\($0.0)\"" }.joined(separator: ", ")); [] for none.")
        guard case .object(let members) = given, members.count == 1, case .array(let items)? = members["approve"]
        else { throw problem }
        let words = items.compactMap { item -> String? in if case .string(let word) = item { word } else { nil } }
        guard words.count == items.count, let policy = ApprovalPolicy.named(words) else { throw problem }
        return policy
    }

    /// `"tokenCommand": ["pass", "show", "airtable"]`: a program and its arguments, run without a shell.
    private func tokenCommand() throws -> [String] { try command(.tokenCommand, example: "airtable") }

    /// A setting that names a program and its arguments (`tokenCommand`, `redisPasswordCommand`): a list of strings,
    /// the program first.
    package func command(_ key: SecretsKey, example: String) throws -> [String] {
        guard case .array(let items) = values[key], !items.isEmpty,
            case let words = items.compactMap({ item -> String? in
                if case .string(let word) = item { word } else { nil }
            }), words.count == items.count, !words[0].isEmpty
        else {
            throw AppError.configuration(
                "\"\(key.rawValue)\" in \(origin) must be a list of strings, the program first, like [\"pass\", \"show\", \"\(example)\"]",
                hint: nil)
        }
        return words
    }

    private func missing(_ key: SecretsKey) -> AppError {
        guard file != nil else {
            let variable = key.environmentVariable ?? key.rawValue
            let searched = searched.joined(separator: " and ")
            let home = environment["HOME"].map { $0.isEmpty ? nil : $0 } ?? nil
            let note = home == nil && environment["XDG_CONFIG_HOME"] == nil ? " (HOME is not set)" : ""
            return .configuration(
                "no secrets found: looked for \(searched)\(note), and \(variable) is not set",
                hint:
                    "Run 'tracker init' to create one, or set AIRTABLE_TOKEN and AIRTABLE_BASE_ID (and AIRTABLE_TABLE if the table is not \"\(Configuration.templateTable)\")."
            )
        }
        let variable = key.environmentVariable.map { ", or set \($0)" } ?? ""
        let alternative = key == .token ? " (or \"tokenCommand\")" : ""
        return .configuration(
            "\(origin) has no \"\(key.rawValue)\"\(alternative)",
            hint: "Add it as in Secrets.example.json\(variable).")
    }

    /// `"fields": {"due": "Deadline", "kickoff": null, "complete": {"field": "Status", "done": "Done"}}`: every key one
    /// of tracker's words, every value a usable field name, null for a field the base lacks, or the select object.
    private func fieldSettings() throws -> FieldSettings {
        var fields = values[.fields]
        // "images" names the attachment field that attach and files use; it is not one of the fields every command reads.
        if case .object(var members) = fields {
            members["images"] = nil
            fields = .object(members)
        }
        return try Self.tableSettings(fields, place: ProjectWord.settingsKey, origin: origin)
    }

    /// `"fields": {"images": "Mock-ups"}`: the attachment field `attach` and `files` use, or null for none.
    private func imagesSetting() throws -> FieldSettings.Setting? {
        guard case .object(let members) = values[.fields], let value = members["images"] else { return nil }
        switch value {
        case .null: return .absent
        case .string(let name) where !name.trimmingWhitespace().isEmpty: return .named(name)
        default:
            throw AppError.configuration(
                "\(ProjectWord.settingsKey).\"images\" in \(origin) must be the name of an attachment field, or null",
                hint: nil)
        }
    }

    /// `"tasks": {"table": "To-dos", "fields": {…}}` (the fields as for projects, with the tasks' words), or
    /// `"tasks": null` for a base without a Tasks table; left out, the template's.
    private func tasksSettings() throws -> TasksSettings {
        guard let value = values[.tasks] else { return .template }
        let form = #"{"table": "Tasks", "fields": {"estimate": null}}"#
        switch value {
        case .null: return .absent
        case .object(let members):
            for key in members.keys.sorted() where key != "table" && key != "fields" {
                throw AppError.configuration(
                    "unknown key \"\(key)\" in \"tasks\" of \(origin); it takes \(form), or null",
                    hint: nil)
            }
            var table: String?
            switch members["table"] {
            case nil: table = nil
            case .string(let name) where !name.trimmingWhitespace().isEmpty: table = name
            default:
                throw AppError.configuration(
                    "\"tasks\".\"table\" in \(origin) must be the name of a table, as in \(form)", hint: nil)
            }
            return .table(
                table, try Self.tableSettings(members["fields"], place: TaskWord.settingsKey, origin: origin))
        default:
            throw AppError.configuration("\"tasks\" in \(origin) must be an object, \(form), or null", hint: nil)
        }
    }

    /// One table's `"fields"` object, `place` being how messages quote where it is in the file.
    private static func tableSettings<Word: TableWord>(_ value: SecretsValue?, place: String, origin: String) throws
        -> TableSettings<Word>
    {
        guard let value else { return .template }
        let example = #"like {"due": "Deadline"}"#
        guard case .object(let members) = value else {
            throw AppError.configuration("\(place) in \(origin) must be an object, \(example)", hint: nil)
        }
        let words = Word.allCases.map(\.rawValue)
        var settings = TableSettings<Word>()
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            guard let word = Word(rawValue: key) else {
                let suggestion = Suggestion.ending(for: key, in: words)
                throw AppError.configuration(
                    "unknown word \"\(key)\" in \(place) of \(origin).\(suggestion)",
                    hint: "Words: \(words.joined(separator: ", ")).")
            }
            switch member {
            case .null:
                settings.words[word] = .absent
            case .string(let name) where !name.trimmingWhitespace().isEmpty:
                settings.words[word] = .named(try usableFieldName(name, key: key, place: place, origin: origin))
            case .object(let select) where word == Word.complete:
                settings.completionSelect = try completionSelect(select, place: place, origin: origin)
            default:
                let forms = word == Word.complete ? #", null, or {"field": "Status", "done": "Done"}"# : " or null"
                throw AppError.configuration(
                    "\(place).\"\(key)\" in \(origin) must be the name of a field\(forms), \(example)", hint: nil)
            }
        }
        return settings
    }

    /// `{"field": "Status", "done": "Done", "open": "In progress"}`; `open` may be left out.
    private static func completionSelect(_ members: [String: SecretsValue], place: String, origin: String) throws
        -> CompletionSelect
    {
        let form = #"{"field": "Status", "done": "Done", "open": "In progress"}"#
        for key in members.keys where !["field", "done", "open"].contains(key) {
            throw AppError.configuration(
                "unknown key \"\(key)\" in \(place).\"complete\" of \(origin); it takes \(form)", hint: nil)
        }
        func text(_ key: String) throws -> String? {
            switch members[key] {
            case nil: return nil
            case .string(let value) where !value.trimmingWhitespace().isEmpty: return value
            default:
                throw AppError.configuration(
                    "\(place).\"complete\".\"\(key)\" in \(origin) must be a non-empty string, as in \(form)",
                    hint: nil)
            }
        }
        guard let field = try text("field"), let done = try text("done") else {
            throw AppError.configuration(
                "\(place).\"complete\" in \(origin) needs \"field\" and \"done\", as in \(form)", hint: nil)
        }
        return CompletionSelect(
            field: try usableFieldName(field, key: "complete", place: place, origin: origin), done: done,
            open: try text("open"))
    }

    /// Field names go into formulas as {Name}, which has no way to escape a brace.
    private static func usableFieldName(_ name: String, key: String, place: String, origin: String) throws -> String {
        guard !name.contains("{") && !name.contains("}") else {
            throw AppError.configuration(
                "\(place).\"\(key)\" in \(origin) names \"\(name)\"; tracker cannot use a field whose name has { or }",
                hint: "Rename the field in Airtable.")
        }
        return name
    }

    private func number(_ key: SecretsKey, default value: Double, range: ClosedRange<Double>, whole: Bool = false)
        throws -> Double
    {
        switch values[key] {
        case nil: return value
        case .number(let number) where range.contains(number) && (!whole || number == number.rounded()):
            return number
        default:
            let kind = whole ? "a whole number" : "a number"
            throw AppError.configuration(
                "\"\(key.rawValue)\" in \(origin) must be \(kind) from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))",
                hint: nil)
        }
    }

    private func whole(_ key: SecretsKey, default value: Int, range: ClosedRange<Double>) throws -> Int {
        Int(try number(key, default: Double(value), range: range, whole: true))
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
