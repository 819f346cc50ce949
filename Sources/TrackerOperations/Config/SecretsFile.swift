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

/// A value in the secrets file, kept with its JSON type so errors can say what was wrong.
package indirect enum SecretsValue: Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: SecretsValue])
    case array([SecretsValue])
    case null
    case other
}

/// Finds the secrets file the way docs/contract.md orders it and reads its keys.
package struct SecretsFile {
    package var path: String
    /// The top-level keys: the only settings of a file without profiles, else the defaults every profile starts from.
    package var values: [SecretsKey: SecretsValue]
    /// The file's permission bits.
    package var mode: UInt32
    /// Each profile's own keys, by name.
    package var profiles: [String: [SecretsKey: SecretsValue]] = [:]

    /// The profile names, sorted.
    package var profileNames: [String] { profiles.keys.sorted() }

    /// The settings of `profile` (nil for a file without profiles): its own keys over the top-level ones, a token
    /// source of its own replacing the top level's either way.
    package func settings(of profile: String?) -> [SecretsKey: SecretsValue] {
        var merged = values.filter { $0.key != .profiles && $0.key != .default }
        guard let profile, let own = profiles[profile] else { return merged }
        if own[.token] != nil || own[.tokenCommand] != nil {
            merged[.token] = nil
            merged[.tokenCommand] = nil
        }
        merged.merge(own) { $1 }
        return merged
    }

    /// The candidate paths in lookup order, each with whether it was named explicitly (a missing explicit file is an error).
    package static func candidates(flag: String?, environment: [String: String], currentDirectory: String) -> [(
        path: String, origin: String?
    )] {
        if let flag { return [(flag, "--secrets")] }
        if let path = environment["TRACKER_SECRETS"], !path.isEmpty { return [(path, "TRACKER_SECRETS")] }
        var paths = [(currentDirectory + "/Secrets.json", String?.none)]
        if let user = userPath(environment: environment) { paths.append((user, nil)) }
        return paths
    }

    /// The user's own secrets file: `$XDG_CONFIG_HOME/tracker/Secrets.json`, else `~/.config/tracker/Secrets.json`.
    package static func userPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/tracker/Secrets.json" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/tracker/Secrets.json" }
        return nil
    }

    /// Writes `text` to `path` readable by its owner only (0600), creating the directory (0700 when it is tracker's
    /// own); an existing file is replaced only when `replacing`.
    package static func write(_ text: String, to path: String, replacing: Bool, privateDirectory: Bool) throws {
        let directory = Path.directory(of: path)
        let made = directory.isEmpty ? 0 : POSIX.makeDirectories(directory)
        if made != 0 { throw AppError.file("cannot create \(directory): \(POSIX.describe(made))") }
        if privateDirectory { chmod(directory, 0o700) }
        let code = ReplacedFile.replace(path, with: Data((text + "\n").utf8), mode: 0o600, keepingExisting: !replacing)
        if code != 0 {
            throw AppError.file("cannot write \(path): \(POSIX.describe(code))")
        }
    }

    /// The file's text with `profile` set to `settings`, every other key and profile kept; a file whose own settings
    /// named a base moves them into profile "main" first, so it keeps meaning what it meant.
    package func adding(profile: String, _ settings: [(SecretsKey, JSONValue)]) -> (text: String, movedToMain: Bool) {
        var top = values
        var profiles = self.profiles
        let connection: [SecretsKey] = [.token, .tokenCommand, .baseId, .table, .endpoint, .fields, .tasks]
        var moved = false
        if profiles.isEmpty && (top[.baseId] != nil || top[.token] != nil || top[.tokenCommand] != nil) {
            profiles["main"] = top.filter { connection.contains($0.key) }
            for key in connection { top[key] = nil }
            moved = true
        }
        // The first profile becomes the default: the one a file already used, else this one.
        if top[.default] == nil && profiles.count <= 1 { top[.default] = .string(profiles.keys.first ?? profile) }
        profiles[profile] = Dictionary(uniqueKeysWithValues: settings.map { ($0.0, SecretsValue($0.1)) })
        top[.profiles] = nil
        var lines = SecretsKey.allCases.compactMap { key in
            top[key].map { "  \(JSONValue.string(key.rawValue).serialized()): \($0.json.serialized())" }
        }
        let entries = profiles.keys.sorted().map { name in
            let members = SecretsKey.allCases.compactMap { key in profiles[name]?[key].map { (key.rawValue, $0.json) } }
            return "    \(JSONValue.string(name).serialized()): \(JSONValue.object(members).serialized())"
        }
        lines.append("  \"profiles\": {\n" + entries.joined(separator: ",\n") + "\n  }")
        return ("{\n" + lines.joined(separator: ",\n") + "\n}", moved)
    }

    /// Reads the first candidate that exists, or nil when none does.
    package static func locate(flag: String?, environment: [String: String], currentDirectory: String) -> Result<
        SecretsFile?, AppError
    > {
        for (path, origin) in candidates(flag: flag, environment: environment, currentDirectory: currentDirectory) {
            var info = stat()
            guard stat(path, &info) == 0 else {
                if let origin {
                    return .failure(
                        .configuration(
                            "\(origin) names \(path), which does not exist",
                            hint: "Run 'tracker init --path \(path)' to create it."))
                }
                continue
            }
            return read(path: path, mode: info.st_mode).map { $0 }
        }
        return .success(nil)
    }

    package static func read(path: String, mode: mode_t) -> Result<SecretsFile, AppError> {
        if mode & S_IFMT == S_IFDIR {
            return .failure(.configuration("\(path) is a directory, not a secrets file", hint: nil))
        }
        // open(2) and read(2), not FileManager: its first use costs every command about 0.1 ms.
        let descriptor = POSIX.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else {
            return .failure(.configuration("cannot read \(path): \(String(cString: strerror(errno)))", hint: nil))
        }
        let data = Data(POSIX.readAll(descriptor))
        close(descriptor)
        // tracker's own JSON reader, not Foundation's decoder: the file is read by every command, and the decoder's
        // generic machinery cost a listing more than a millisecond of start-up.
        guard let parsed = try? JSONParser.parse(data), let members = parsed.objectMembers else {
            return .failure(
                .configuration(
                    "\(path) is not a JSON object of settings",
                    hint: "Compare it with Secrets.example.json; keys and strings need double quotes."))
        }
        let raw = Dictionary(members.map { ($0.0, SecretsValue($0.1)) }) { _, last in last }
        func order(_ value: JSONValue?) -> [String] { value?.objectMembers?.map(\.0) ?? [] }
        return Result { () throws(AppError) in
            let values = try keys(raw, in: path, allowed: SecretsKey.allCases, order: order(parsed))
            var file = SecretsFile(path: path, values: values, mode: UInt32(mode & 0o777))
            switch values[.profiles] {
            case nil: break
            case .object(let profiles):
                for (name, profile) in profiles {
                    guard case .object(let members) = profile else {
                        throw AppError.configuration(
                            "profile \"\(name)\" in \(path) must be an object of settings, like {\"baseId\": \"app…\"}",
                            hint: nil)
                    }
                    file.profiles[name] = try keys(
                        members, in: "profile \"\(name)\" of \(path)", allowed: SecretsKey.profileKeys,
                        order: order(parsed["profiles"]?[name]))
                }
            default:
                throw AppError.configuration(
                    "\"profiles\" in \(path) must be an object, like {\"work\": {\"baseId\": \"app…\"}}", hint: nil)
            }
            switch values[.default] {
            case nil: break
            case .string(let name) where file.profiles[name] != nil: break
            case .string(let name):
                throw AppError.configuration(
                    "\"default\" in \(path) names \"\(name)\", which is not one of its profiles\(listing(file.profileNames))",
                    hint: nil)
            default: throw AppError.configuration("\"default\" in \(path) must be a profile's name", hint: nil)
            }
            return file
        }
    }

    /// " (a, b)" for a list of profile names, quoted; empty for none.
    package static func listing(_ names: [String]) -> String {
        names.isEmpty ? "" : "; its profiles: " + names.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// The settings of one level of the file, every key one it may hold; unknown keys are named all at once, in the
    /// file's `order`.
    private static func keys(
        _ raw: [String: SecretsValue], in place: String, allowed: [SecretsKey], order: [String] = []
    ) throws(AppError) -> [SecretsKey: SecretsValue] {
        var values: [SecretsKey: SecretsValue] = [:]
        var unknown: [String] = []
        for (name, value) in raw {
            guard let key = SecretsKey(rawValue: name), allowed.contains(key) else {
                if FieldMap.Word(rawValue: name) != nil {
                    throw AppError.configuration(
                        "\"\(name)\" in \(place) belongs inside \"fields\"",
                        hint: "Write \"fields\": {\"\(name)\": …} (see 'Your own base' in the README).")
                }
                unknown.append(name)
                continue
            }
            values[key] = value
        }
        guard !unknown.isEmpty else { return values }
        unknown.sort { (order.firstIndex(of: $0) ?? Int.max, $0) < (order.firstIndex(of: $1) ?? Int.max, $1) }
        let known = allowed.map(\.rawValue)
        // A key that could be a token is not repeated.
        func shown(_ name: String) -> String { name.count > 40 ? "(a long key)" : "\"\(name)\"" }
        func meant(_ name: String) -> String? { renamed[name.lowercased()] ?? Suggestion.closest(to: name, in: known) }
        if unknown.count == 1, let name = unknown.first {
            let suggestion = meant(name).flatMap { Suggestion.question([$0]) }.map { " " + $0 } ?? ""
            throw AppError.configuration(
                "unknown key \(shown(name)) in \(place).\(suggestion)",
                hint: "Known keys: \(known.joined(separator: ", ")).")
        }
        let guesses = unknown.compactMap { name in meant(name).map { "\"\($0)\" for \(shown(name))" } }
        throw AppError.configuration(
            "unknown keys \(unknown.map(shown).joined(separator: ", ")) in \(place)."
                + (guesses.isEmpty ? "" : " Did you mean \(guesses.joined(separator: ", "))?"),
            hint: "Known keys: \(known.joined(separator: ", ")).")
    }

    /// Keys other Airtable tools and tutorials use for tracker's settings.
    package static let renamed = [
        "apikey": "token", "api_key": "token", "accesstoken": "token", "pat": "token", "base": "baseId",
        "baseid": "baseId", "base_id": "baseId", "tablename": "table", "table_name": "table",
        "endpointurl": "endpoint", "url": "endpoint",
    ]
    /// Each stored value given.
    package init(
        path: String, values: [SecretsKey: SecretsValue], mode: UInt32,
        profiles: [String: [SecretsKey: SecretsValue]] = [:]
    ) {
        self.path = path
        self.values = values
        self.mode = mode
        self.profiles = profiles
    }
}

extension SecretsValue {
    /// The value as JSON, objects in key order.
    package var json: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .object(let members): .object(members.keys.sorted().map { ($0, members[$0]!.json) })
        case .array(let items): .array(items.map(\.json))
        case .null, .other: .null
        }
    }

    package init(_ json: JSONValue) {
        switch json {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .object(let members): self = .object(Dictionary(members.map { ($0.0, SecretsValue($0.1)) }) { $1 })
        case .array(let items): self = .array(items.map(SecretsValue.init))
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        }
    }
}
