import Foundation

/// Builds a `Configuration` from the secrets file and environment overrides, checking every value once.
public enum ConfigurationLoader {
    /// Resolves the configuration; `warn` receives one-line warnings such as a file readable by others.
    public static func load(
        secretsFlag: String?, environment: [String: String], currentDirectory: String,
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
        return Resolver(file: file, environment: environment, searched: searched).resolve()
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
            && baseID.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII }
        guard isBaseID, !baseID.contains("XXXXXXXXXXXXXX") else {
            throw AppError.configuration(
                "baseId \"\(baseID)\" is not an Airtable base id (app followed by 14 letters and digits)",
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
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The one-line warning for a secrets file others can read, shared with `doctor`.
    static func readableWarning(_ path: String) -> String {
        "warning: \(path) is readable by other users; run: chmod 600 '\(path)'"
    }
}

private struct Resolver {
    var file: SecretsFile?
    var environment: [String: String]
    /// The paths looked in, for the message when there is no file.
    var searched: [String]

    var origin: String { file?.path ?? "the environment" }

    func resolve() -> Result<Configuration, AppError> {
        Result {
            var usedEnvironment: [String] = []
            func string(_ key: SecretsKey) throws -> String? {
                if let variable = key.environmentVariable, let value = environment[variable], !value.isEmpty {
                    usedEnvironment.append(variable)
                    return value
                }
                switch file?.values[key] {
                case nil: return nil
                case .string(let value): return value
                default: throw AppError.configuration("\"\(key.rawValue)\" in \(origin) must be a string", hint: nil)
                }
            }
            func required(_ key: SecretsKey) throws -> String {
                guard let value = try string(key), !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw missing(key)
                }
                return value
            }
            let token = try required(.token)
            let baseID = try required(.baseId)
            let table = try required(.table)
            try ConfigurationLoader.check(token: token, baseID: baseID, origin: origin)
            return Configuration(
                token: token, baseID: baseID, table: table,
                endpoint: try ConfigurationLoader.endpoint(try string(.endpoint)) ?? Configuration.defaultEndpoint,
                requestsPerSecond: try number(
                    .requestsPerSecond, default: Configuration.defaultRequestsPerSecond, range: 0.1...10000),
                timeoutSeconds: try whole(
                    .timeoutSeconds, default: Configuration.defaultTimeoutSeconds, range: 1...3600),
                retryBudgetSeconds: try whole(
                    .retryBudgetSeconds, default: Configuration.defaultRetryBudgetSeconds, range: 0...86400),
                fieldSettings: try fieldSettings(),
                secretsPath: file?.path, secretsMode: file?.mode, environmentKeys: usedEnvironment)
        }.mapError { $0 as? AppError ?? .configuration("\($0)", hint: nil) }
    }

    private func missing(_ key: SecretsKey) -> AppError {
        guard let file else {
            let variable = key.environmentVariable ?? key.rawValue
            let searched = searched.joined(separator: " and ")
            let home = environment["HOME"].map { $0.isEmpty ? nil : $0 } ?? nil
            let note = home == nil && environment["XDG_CONFIG_HOME"] == nil ? " (HOME is not set)" : ""
            return .configuration(
                "no secrets found: looked for \(searched)\(note), and \(variable) is not set",
                hint: "Run 'tracker init' to create one, or set AIRTABLE_TOKEN, AIRTABLE_BASE_ID and AIRTABLE_TABLE.")
        }
        let variable = key.environmentVariable.map { ", or set \($0)" } ?? ""
        return .configuration(
            "\(file.path) has no \"\(key.rawValue)\"", hint: "Add it as in Secrets.example.json\(variable).")
    }

    /// `"fields": {"due": "Deadline", "kickoff": null, "complete": {"field": "Status", "done": "Done"}}`: every key one
    /// of tracker's words, every value a usable field name, null for a field the base lacks, or the select object.
    private func fieldSettings() throws -> FieldSettings {
        guard let value = file?.values[.fields] else { return .template }
        let example = #"like {"due": "Deadline"}"#
        guard case .object(let members) = value else {
            throw AppError.configuration("\"fields\" in \(origin) must be an object, \(example)", hint: nil)
        }
        let words = FieldMap.Word.allCases.map(\.rawValue)
        var settings = FieldSettings()
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            guard let word = FieldMap.Word(rawValue: key) else {
                let suggestion = Suggestion.ending(for: key, in: words)
                throw AppError.configuration(
                    "unknown word \"\(key)\" in \"fields\" of \(origin).\(suggestion)",
                    hint: "Words: \(words.joined(separator: ", ")).")
            }
            switch member {
            case .null:
                settings.words[word] = .absent
            case .string(let name) where !name.trimmingCharacters(in: .whitespaces).isEmpty:
                settings.words[word] = .named(try Self.usableFieldName(name, key: key, origin: origin))
            case .object(let select) where word == .complete:
                settings.completionSelect = try completionSelect(select)
            default:
                let forms = word == .complete ? #", null, or {"field": "Status", "done": "Done"}"# : " or null"
                throw AppError.configuration(
                    "\"fields\".\"\(key)\" in \(origin) must be the name of a field\(forms), \(example)", hint: nil)
            }
        }
        return settings
    }

    /// `{"field": "Status", "done": "Done", "open": "In progress"}`; `open` may be left out.
    private func completionSelect(_ members: [String: SecretsValue]) throws -> FieldSettings.CompletionSelect {
        let form = #"{"field": "Status", "done": "Done", "open": "In progress"}"#
        for key in members.keys where !["field", "done", "open"].contains(key) {
            throw AppError.configuration(
                "unknown key \"\(key)\" in \"fields\".\"complete\" of \(origin); it takes \(form)", hint: nil)
        }
        func text(_ key: String) throws -> String? {
            switch members[key] {
            case nil: return nil
            case .string(let value) where !value.trimmingCharacters(in: .whitespaces).isEmpty: return value
            default:
                throw AppError.configuration(
                    "\"fields\".\"complete\".\"\(key)\" in \(origin) must be a non-empty string, as in \(form)",
                    hint: nil)
            }
        }
        guard let field = try text("field"), let done = try text("done") else {
            throw AppError.configuration(
                "\"fields\".\"complete\" in \(origin) needs \"field\" and \"done\", as in \(form)", hint: nil)
        }
        return FieldSettings.CompletionSelect(
            field: try Self.usableFieldName(field, key: "complete", origin: origin), done: done, open: try text("open"))
    }

    /// Field names go into formulas as {Name}, which has no way to escape a brace.
    private static func usableFieldName(_ name: String, key: String, origin: String) throws -> String {
        guard !name.contains("{") && !name.contains("}") else {
            throw AppError.configuration(
                "\"fields\".\"\(key)\" in \(origin) names \"\(name)\"; tracker cannot use a field whose name has { or }",
                hint: "Rename the field in Airtable.")
        }
        return name
    }

    private func number(_ key: SecretsKey, default value: Double, range: ClosedRange<Double>, whole: Bool = false)
        throws -> Double
    {
        switch file?.values[key] {
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
