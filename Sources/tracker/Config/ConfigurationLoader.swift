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

/// Builds a `Configuration` from the secrets file and environment overrides, checking every value once.
enum ConfigurationLoader {
    /// Resolves the configuration; `warn` receives one-line warnings such as a file readable by others.
    static func load(
        secretsFlag: String?, profile: String? = nil, environment: [String: String], currentDirectory: String,
        warn: (String) -> Void
    ) -> Result<Configuration, AppError> {
        let file: SecretsFile?
        switch SecretsFile.locate(flag: secretsFlag, environment: environment, currentDirectory: currentDirectory) {
        case .success(let found): file = found
        case .failure(let error): return .failure(error)
        }
        if let file, Configuration.isReadableByOthers(mode: file.mode) { warn(readableWarning(file.path)) }
        let searched = SecretsFile.candidates(
            flag: secretsFlag, environment: environment, currentDirectory: currentDirectory
        ).map(\.path)
        let chosen: String?
        switch choose(profile: profile, environment: environment, file: file, searched: searched) {
        case .success(let name): chosen = name
        case .failure(let error): return .failure(error)
        }
        return Resolver(file: file, profile: chosen, environment: environment, searched: searched).resolve()
    }

    /// The profile to use: `--profile`, else `TRACKER_PROFILE`, else the file's `"default"`, else its only profile;
    /// nil for a file without profiles.
    static func choose(profile flag: String?, environment: [String: String], file: SecretsFile?, searched: [String])
        -> Result<String?, AppError>
    {
        let variable = environment["TRACKER_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let wanted = flag ?? variable
        let how = flag != nil ? "--profile" : "TRACKER_PROFILE"
        guard let file else {
            guard let wanted else { return .success(nil) }
            return .failure(
                .configuration(
                    "\(how) names profile \"\(wanted)\", but there is no secrets file (looked for \(searched.joined(separator: " and ")))",
                    hint: "Run 'tracker init --profile \(wanted)' to create one."))
        }
        let names = file.profileNames
        if let wanted {
            if file.profiles[wanted] != nil { return .success(wanted) }
            if names.isEmpty {
                return .failure(
                    .configuration(
                        "\(how) names profile \"\(wanted)\", but \(file.path) has no profiles",
                        hint: "Add one with 'tracker init --profile \(wanted)'."))
            }
            return .failure(
                .configuration(
                    "no profile \"\(wanted)\" in \(file.path)\(SecretsFile.listing(names))."
                        + Suggestion.ending(for: wanted, in: names),
                    hint: "Pick one with --profile NAME or TRACKER_PROFILE."))
        }
        if names.isEmpty { return .success(nil) }
        if case .string(let name)? = file.values[.default] { return .success(name) }
        if names.count == 1 { return .success(names[0]) }
        return .failure(
            .configuration(
                "\(file.path) has several profiles and no \"default\"\(SecretsFile.listing(names))",
                hint: "Pick one with --profile NAME or TRACKER_PROFILE, or add \"default\": \"NAME\" to the file."))
    }

    /// The environment's value for `key` (AIRTABLE_TOKEN and the like), which overrides the file's unless empty.
    static func environmentValue(of key: SecretsKey, in environment: [String: String]) -> String? {
        key.environmentVariable.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Refuses the example file's placeholders and values that cannot be a token or a base id.
    static func check(token: String, baseID: String, origin: String) throws {
        if token.contains("XXXXXXXXXXXXXX") || token.hasSuffix(String(repeating: "0", count: 64)) {
            throw AppError.configuration(
                "the token in \(origin) is still the placeholder from Secrets.example.json",
                hint: "Create a personal access token at https://airtable.com/create/tokens and paste it in.")
        }
        if token.contains(where: { $0.isWhitespace || $0.isNewline }) {
            throw AppError.configuration("the token in \(origin) contains spaces or line breaks", hint: nil)
        }
        let isBaseID =
            baseID.count == 17 && baseID.hasPrefix("app")
            && baseID.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
        guard isBaseID, !baseID.contains("XXXXXXXXXXXXXX") else {
            // A value much longer than a base id may be a token pasted into the wrong key: it is not repeated.
            let looksLikeToken = baseID.hasPrefix("pat") || baseID.hasPrefix("key") || baseID.count > 24
            let shown = looksLikeToken ? "" : " \"\(baseID)\""
            throw AppError.configuration(
                "baseId\(shown) in \(origin) is not an Airtable base id (app followed by 14 letters and digits)"
                    + (looksLikeToken ? "; it looks like a token, which belongs in \"token\"" : ""),
                hint: "Copy it from the base's URL: https://airtable.com/appXXXXXXXXXXXXXX/…")
        }
    }

    /// The endpoint a setting names, nil when there is none; plain http only to this machine.
    static func endpoint(_ text: String?) throws -> URL? {
        guard var text, !text.isEmpty else { return nil }
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            scheme == "https" || scheme == "http"
        else {
            throw AppError.configuration("endpoint \"\(text)\" is not an http(s) URL", hint: nil)
        }
        if scheme == "http" && !isLoopback(host) {
            throw AppError.configuration(
                "refusing plain http:// endpoint \(host): the token would travel unencrypted",
                hint: "Use https://, or http:// only with localhost or 127.0.0.1.")
        }
        return url
    }

    static func isLoopback(_ host: String) -> Bool {
        var bare = Substring(host.lowercased())
        while bare.hasPrefix("[") { bare.removeFirst() }
        while bare.hasSuffix("]") { bare.removeLast() }
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The one-line warning for a secrets file others can read, shared with `doctor`.
    static func readableWarning(_ path: String) -> String {
        "warning: \(path) is readable by other users; run: chmod 600 '\(path)'"
    }
}

/// The settings in force for one profile of one file and the environment, turned into a Configuration.
struct Resolver {
    var file: SecretsFile?
    var profile: String?
    var environment: [String: String]
    /// The paths looked in, for the message when there is no file.
    var searched: [String]

    var origin: String {
        guard let file else { return "the environment" }
        return profile.map { "profile \"\($0)\" of \(file.path)" } ?? file.path
    }

    /// The settings in force: the profile's over the file's top level.
    private var values: [SecretsKey: SecretsValue] { file?.settings(of: profile) ?? [:] }

    func resolve() -> Result<Configuration, AppError> {
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
            let table = try required(.table)
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
            return configuration
        }.mapError { $0 as? AppError ?? .configuration("\($0)", hint: nil) }
    }

    /// `"tokenCommand": ["pass", "show", "airtable"]`: a program and its arguments, run without a shell.
    private func tokenCommand() throws -> [String] {
        guard case .array(let items) = values[.tokenCommand], !items.isEmpty,
            case let words = items.compactMap({ item -> String? in
                if case .string(let word) = item { word } else { nil }
            }), words.count == items.count, !words[0].isEmpty
        else {
            throw AppError.configuration(
                "\"tokenCommand\" in \(origin) must be a list of strings, the program first, like [\"pass\", \"show\", \"airtable\"]",
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
                hint: "Run 'tracker init' to create one, or set AIRTABLE_TOKEN, AIRTABLE_BASE_ID and AIRTABLE_TABLE.")
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
