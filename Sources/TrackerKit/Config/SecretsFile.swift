import Foundation

/// A value in the secrets file, kept with its JSON type so errors can say what was wrong.
indirect enum SecretsValue: Decodable, Equatable {
    case string(String)
    case number(Double)
    case object([String: SecretsValue])
    case null
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if (try? container.decode(Bool.self)) != nil {
            self = .other
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let object = try? container.decode([String: SecretsValue].self) {
            self = .object(object)
        } else {
            self = .other
        }
    }
}

/// Finds the secrets file the way cli-spec.md orders it and reads its keys.
struct SecretsFile {
    var path: String
    var values: [SecretsKey: SecretsValue]
    /// The file's permission bits.
    var mode: UInt32

    /// The candidate paths in lookup order, each with whether it was named explicitly (a missing explicit file is an error).
    static func candidates(flag: String?, environment: [String: String], currentDirectory: String) -> [(
        path: String, origin: String?
    )] {
        if let flag { return [(flag, "--secrets")] }
        if let path = environment["TRACKER_SECRETS"], !path.isEmpty { return [(path, "TRACKER_SECRETS")] }
        var paths = [(currentDirectory + "/Secrets.json", String?.none)]
        if let user = userPath(environment: environment) { paths.append((user, nil)) }
        return paths
    }

    /// The user's own secrets file: `$XDG_CONFIG_HOME/tracker/Secrets.json`, else `~/.config/tracker/Secrets.json`.
    static func userPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/tracker/Secrets.json" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/tracker/Secrets.json" }
        return nil
    }

    /// Writes `text` to `path` readable by its owner only (0600), creating the directory (0700 when it is tracker's
    /// own); an existing file is replaced only when `replacing`.
    static func write(_ text: String, to path: String, replacing: Bool, privateDirectory: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AppError.file("cannot create \(directory): \((error as NSError).localizedDescription)")
        }
        if privateDirectory { chmod(directory, 0o700) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (replacing ? O_TRUNC : O_EXCL), 0o600)
        guard descriptor >= 0 else { throw AppError.file("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let code = FileDescriptorWriter.write(text + "\n", to: descriptor)
        if code != 0 { throw AppError.file("cannot write \(path): \(String(cString: strerror(code)))") }
    }

    /// Reads the first candidate that exists, or nil when none does.
    static func locate(flag: String?, environment: [String: String], currentDirectory: String) -> Result<
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

    private static func read(path: String, mode: mode_t) -> Result<SecretsFile, AppError> {
        if mode & S_IFMT == S_IFDIR {
            return .failure(.configuration("\(path) is a directory, not a secrets file", hint: nil))
        }
        guard access(path, R_OK) == 0, let data = FileManager.default.contents(atPath: path) else {
            let reason = errno != 0 ? String(cString: strerror(errno)) : "unreadable"
            return .failure(.configuration("cannot read \(path): \(reason)", hint: nil))
        }
        let raw: [String: SecretsValue]
        do {
            raw = try JSONDecoder().decode([String: SecretsValue].self, from: data)
        } catch {
            return .failure(
                .configuration(
                    "\(path) is not a JSON object of settings",
                    hint: "Compare it with Secrets.example.json; keys and strings need double quotes."))
        }
        var values: [SecretsKey: SecretsValue] = [:]
        for (name, value) in raw {
            guard let key = SecretsKey(rawValue: name) else {
                if FieldMap.Word(rawValue: name) != nil {
                    return .failure(
                        .configuration(
                            "\"\(name)\" in \(path) belongs inside \"fields\"",
                            hint: "Write \"fields\": {\"\(name)\": …} (see 'Your own base' in the README)."))
                }
                let known = SecretsKey.allCases.map(\.rawValue)
                let suggestion = Suggestion.ending(for: name, in: known)
                return .failure(
                    .configuration(
                        "unknown key \"\(name)\" in \(path).\(suggestion)",
                        hint: "Known keys: \(known.joined(separator: ", "))."))
            }
            values[key] = value
        }
        return .success(SecretsFile(path: path, values: values, mode: UInt32(mode & 0o777)))
    }
}
