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
import TrackerModel
import TrackerNetwork

/// `tracker init`: creates the secrets file, the token, base and table checked first.
package struct Init: SetupOperation, Equatable {
    package static let spec = CommandSpec(
        name: "init", summary: "Create the secrets file: token, base and table, checked first.",
        usage: [
            "tracker init [--base ID] [--table NAME] [--redis URL [--team-copy]] [--path PATH] [--force] [-q]",
            "tracker init --profile NAME [--token-command 'COMMAND…'] [--base ID] [--table NAME] [--redis URL]",
            "             [--force] [-q]",
        ],
        flags: [
            FlagSpec(name: "--base", value: "ID", help: "the base id, app… (asked on a terminal)"),
            FlagSpec(
                name: "--token-command", value: "COMMAND",
                help: "keep no token in the file: run this to get it (split on spaces; '…' quotes)"),
            FlagSpec(name: "--table", value: "NAME", help: "the table (default \"Design projects\")"),
            FlagSpec(
                name: "--redis", value: "URL",
                help:
                    "share the request budget and the write locks with other machines through this Redis (redis://:password@host:port, rediss://, unix://), checked with one round trip"
            ),
            FlagSpec(
                name: "--team-copy",
                help:
                    "with --redis: the board and mcp share one copy of the tables in that Redis (records are stored there), kept by one poller"
            ),
            FlagSpec(name: "--path", value: "PATH", help: "write here instead of ~/.config/tracker/Secrets.json"),
            FlagSpec(name: "--force", help: "replace an existing file"),
            FlagSpec(name: "--quiet", short: "-q", help: "say nothing on success"),
        ],
        examples: [
            "tracker init", "printf '%s\\n' \"$TOKEN\" | tracker init --base appXXXXXXXXXXXXXX",
            "tracker init --profile work --token-command 'pass show airtable'",
            "tracker init --redis 'redis://:password@redis.example.com:6379'",
            "tracker init --redis 'rediss://redis.example.com' --team-copy",
        ],
        notes: [
            "On a terminal it asks for the token (without echo), the base id and the table; otherwise it reads the",
            "token from stdin's first line and needs --base. One read checks them before the file is written (0600).",
            "With --profile it adds (or with --force replaces) that profile and leaves the file's others as they were.",
            "--team-copy (with --redis) writes \"teamCopy\": true: the board and mcp then share one copy of the tables",
            "in that Redis, so it stores the base's records there (hence it is asked for, never assumed).",
            "It says what it saved on stderr (one line when piped), unless -q.",
        ])

    package var base: String? = nil
    package var table: String? = nil
    /// Where to write; nil for the user's own secrets file.
    package var path: String? = nil
    package var force = false
    /// The program that prints the token, written as `tokenCommand` instead of a token.
    package var tokenCommand: [String]? = nil
    /// `--redis URL`: the team's Redis, written as `"redis"` once it answered.
    package var redis: String? = nil
    /// `--team-copy`: `"teamCopy": true` written beside `"redis"`.
    package var teamCopy = false
    package var quiet = false

    /// The token, when the face read it already (stdin's first line); else it comes from `--token-command` or the
    /// face's questions.
    package var token: String? = nil

    /// Each option given.
    package init(
        base: String? = nil, table: String? = nil, path: String? = nil, force: Bool = false,
        tokenCommand: [String]? = nil, redis: String? = nil, quiet: Bool = false, token: String? = nil
    ) {
        (self.base, self.table, self.path, self.force) = (base, table, path, force)
        (self.tokenCommand, self.redis, self.quiet, self.token) = (tokenCommand, redis, quiet, token)
    }

    /// Refused where nobody can be asked and `--base` was not given.
    package static let needsBase = AppError.usage("init needs --base ID when stdin is not a terminal", command: "init")

    /// What the person answered (or the options said): the token, the base, the table, and the base's schema when
    /// it was read to offer its tables.
    package struct Answers: Sendable {
        package var token: String
        package var baseID: String
        package var table: String
        package var schema: BaseSchema?

        /// Each answer given.
        package init(token: String, baseID: String, table: String, schema: BaseSchema? = nil) {
            (self.token, self.baseID, self.table, self.schema) = (token, baseID, table, schema)
        }
    }

    /// With no one to ask: the token given (or from `--token-command`) and `--base`.
    package func run(in setup: Setup) async throws -> SavedSecrets {
        try await run(in: setup) { _ in
            let token = try self.token ?? tokenCommand.map { try TokenCommand.run($0).get() }
            guard let token, let base else { throw Self.needsBase }
            return Answers(token: token, baseID: base, table: table ?? Configuration.templateTable)
        }
    }

    /// Refuses to replace a file (or profile) unless `--force`, then asks (`ask` is the face's questions, given the
    /// endpoint), checks the answers with one read (and Redis with one round trip; `checking` hears when that
    /// starts), and only then writes the secrets file, 0600 in a 0700 directory.
    package func run(
        in setup: Setup, asking ask: (URL) async throws -> Answers, checking: () -> Void = {}
    ) async throws -> SavedSecrets {
        let path = try secretsPath(setup)
        let profile = setup.profile
        let existing = try existingFile(at: path, profile: profile)
        if let existing, let profile {
            if existing.profiles[profile] != nil && !force {
                throw AppError.usage(
                    "\(path) already has a profile \"\(profile)\"; pass --force to replace it", command: "init")
            }
        } else if existing != nil && !force {
            throw AppError.usage(
                "\(path) already exists; pass --force to replace it, --profile NAME to add a profile, or --path to write another file",
                command: "init")
        }
        let endpoint = try ConfigurationLoader.endpoint(setup.environment["AIRTABLE_ENDPOINT_URL"])
        let answers = try await ask(endpoint ?? Configuration.defaultEndpoint)
        let (token, baseID, table) = (answers.token, answers.baseID, answers.table)
        try ConfigurationLoader.check(token: token, baseID: baseID, origin: "what was typed")
        setup.conceal(token)
        checking()
        let configuration = Configuration(
            token: token, baseID: baseID, table: table, endpoint: endpoint ?? Configuration.defaultEndpoint,
            secretsPath: path, environmentKeys: [])
        try await setup.client(configuration).probeTable().get()
        let checkedRedis = try redis.map { try Self.checkedRedis($0, in: setup) }
        var members: [(SecretsKey, JSONValue)] = [
            tokenCommand.map { (.tokenCommand, .array($0.map(JSONValue.string))) } ?? (.token, .string(token)),
            (.baseId, .string(baseID)), (.table, .string(table)),
        ]
        if let endpoint { members.append((.endpoint, .string(endpoint.absoluteString))) }
        if let redis { members.append((.redis, .string(redis))) }
        if teamCopy { members.append((.teamCopy, .bool(true))) }
        var saved = SavedSecrets(
            path: path, profile: profile, baseID: baseID, table: table, schema: answers.schema,
            source: tokenCommand.map { "token from \(TokenCommand.display($0))" }
                ?? "token \(configuration.maskedToken)",
            redis: checkedRedis?.display)
        if let profile {
            let (text, moved) = (existing ?? SecretsFile(path: path, values: [:], mode: 0o600)).adding(
                profile: profile, members)
            try SecretsFile.write(text, to: path, replacing: existing != nil, privateDirectory: self.path == nil)
            saved.movedToMain = moved
        } else {
            try SecretsFile.write(
                JSONValue.object(members.map { ($0.0.rawValue, $0.1) }).serialized(), to: path,
                replacing: force, privateDirectory: self.path == nil)
        }
        return saved
    }

    /// `--redis URL`, read as every command reads it, then one round trip (connect, authenticate, PING): a typo or a
    /// wrong password is found now, not by the first cron run on another machine.
    private static func checkedRedis(_ text: String, in setup: Setup) throws -> RedisAddress {
        let address: RedisAddress
        switch RedisAddress.parse(text, certificateAuthority: setup.environment["TRACKER_REDIS_CA"]) {
        case .success(let parsed): address = parsed
        case .failure(let invalid): throw AppError.usage("--redis: \(invalid.reason)", command: "init")
        }
        if let password = address.password { setup.conceal(password) }
        do throws(RedisFailure) {
            _ = try RedisConnection(address: address).command(["PING"])
        } catch {
            throw error.problem(at: address.display)
        }
        return address
    }

    /// The secrets file already at `path`, read so a new profile can keep everything else; nil when there is none.
    private func existingFile(at path: String, profile: String?) throws -> SecretsFile? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard profile != nil else { return SecretsFile(path: path, values: [:], mode: 0) }
        return try SecretsFile.read(path: path, mode: info.st_mode).get()
    }

    /// Where to write: `--path`, else `$XDG_CONFIG_HOME/tracker/Secrets.json`, else `~/.config/tracker/Secrets.json`.
    private func secretsPath(_ setup: Setup) throws -> String {
        if let path { return setup.absolutePath(path) }
        guard let path = SecretsFile.userPath(environment: setup.environment) else {
            throw AppError.usage("neither XDG_CONFIG_HOME nor HOME is set; pass --path FILE", command: "init")
        }
        return path
    }
}

extension Init {
    package init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        if scanned.has("--team-copy") && !scanned.has("--redis") {
            throw AppError.usage(
                "--team-copy needs --redis URL: the team's copy lives in the team's Redis", command: "init")
        }
        self.init(
            base: try scanned.nonEmpty("--base"), table: try scanned.nonEmpty("--table"),
            path: try scanned.nonEmpty("--path"), force: scanned.has("--force"),
            tokenCommand: try Self.tokenCommand(scanned), redis: try scanned.nonEmpty("--redis"),
            quiet: scanned.has("--quiet"))
        teamCopy = scanned.has("--team-copy")
    }

    /// `--token-command 'pass show airtable'`: split on spaces, '…' or "…" keeping spaces inside one argument.
    package static func tokenCommand(_ scanned: ScannedArguments) throws -> [String]? {
        guard let text = try scanned.nonEmpty("--token-command") else { return nil }
        var words: [String] = []
        var word: String?
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { word = (word ?? "") + String(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character == " " || character == "\t" {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        guard quote == nil else {
            throw AppError.usage("--token-command has an unclosed quote: \(text)", command: "init")
        }
        if let finished = word { words.append(finished) }
        guard !words.isEmpty else { throw AppError.usage("--token-command names no program", command: "init") }
        return words
    }
}

/// What `init` saved: where, as which profile, and what it holds (the token shown masked, or its command).
package struct SavedSecrets: Sendable {
    package var path: String
    package var profile: String?
    package var baseID: String
    package var table: String
    /// The base's schema, when it was read to offer its tables (what is said of its Tasks table comes from it).
    package var schema: BaseSchema?
    /// Where the token comes from: "token pat…(masked)" or "token from COMMAND".
    package var source: String
    /// The team's Redis, as shown (its password hidden), once it answered.
    package var redis: String?
    /// Whether the file's own settings became the profile "main" to make room for the new one.
    package var movedToMain = false
}
