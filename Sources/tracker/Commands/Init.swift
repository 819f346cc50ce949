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
import TrackerOperations
import TrackerNetwork
import TrackerSystem

/// `tracker init`: creates the secrets file, the token, base and table checked first.
struct Init: Command {
    static let spec = CommandSpec(
        name: "init", summary: "Create the secrets file: token, base and table, checked first.",
        usage: [
            "tracker init [--base ID] [--table NAME] [--redis URL] [--path PATH] [--force] [-q]",
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
            FlagSpec(name: "--path", value: "PATH", help: "write here instead of ~/.config/tracker/Secrets.json"),
            FlagSpec(name: "--force", help: "replace an existing file"),
            FlagSpec(name: "--quiet", short: "-q", help: "say nothing on success"),
        ],
        examples: [
            "tracker init", "printf '%s\\n' \"$TOKEN\" | tracker init --base appXXXXXXXXXXXXXX",
            "tracker init --profile work --token-command 'pass show airtable'",
            "tracker init --redis 'redis://:password@redis.example.com:6379'",
        ],
        notes: [
            "On a terminal it asks for the token (without echo), the base id and the table; otherwise it reads the",
            "token from stdin's first line and needs --base. One read checks them before the file is written (0600).",
            "With --profile it adds (or with --force replaces) that profile and leaves the file's others as they were.",
            "It says what it saved on stderr (one line when piped), unless -q.",
        ])

    var base: String? = nil
    var table: String? = nil
    /// Where to write; nil for the user's own secrets file.
    var path: String? = nil
    var force = false
    /// The program that prints the token, written as `tokenCommand` instead of a token.
    var tokenCommand: [String]? = nil
    /// `--redis URL`: the team's Redis, written as `"redis"` once it answered.
    var redis: String? = nil
    var quiet = false

    func run(_ runner: Runner) async throws { try await runner.initialize(self) }
}

extension Init {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals()
        self.init(
            base: try scanned.nonEmpty("--base"), table: try scanned.nonEmpty("--table"),
            path: try scanned.nonEmpty("--path"), force: scanned.has("--force"),
            tokenCommand: try Self.tokenCommand(scanned), redis: try scanned.nonEmpty("--redis"),
            quiet: scanned.has("--quiet"))
    }

    /// `--token-command 'pass show airtable'`: split on spaces, '…' or "…" keeping spaces inside one argument.
    static func tokenCommand(_ scanned: ScannedArguments) throws -> [String]? {
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

extension Runner {
    /// `tracker init`: asks for (or reads) the token, base and table, checks them with one read, and only then writes
    /// the secrets file, 0600 in a 0700 directory.
    fileprivate func initialize(_ options: Init) async throws {
        let path = try secretsPath(options)
        let profile = invocation.globals.profile
        let existing = try existingFile(at: path)
        if let existing, let profile {
            if existing.profiles[profile] != nil && !options.force {
                throw AppError.usage(
                    "\(path) already has a profile \"\(profile)\"; pass --force to replace it", command: "init")
            }
        } else if existing != nil && !options.force {
            throw AppError.usage(
                "\(path) already exists; pass --force to replace it, --profile NAME to add a profile, or --path to write another file",
                command: "init")
        }
        let endpoint = try ConfigurationLoader.endpoint(context.environment["AIRTABLE_ENDPOINT_URL"])
        let (token, baseID, table, schema) = try await askOrRead(
            options, endpoint: endpoint ?? Configuration.defaultEndpoint)
        try ConfigurationLoader.check(token: token, baseID: baseID, origin: "what was typed")
        output.conceal(token)
        let configuration = Configuration(
            token: token, baseID: baseID, table: table, endpoint: endpoint ?? Configuration.defaultEndpoint,
            secretsPath: path, environmentKeys: [])
        if output.isStderrTerminal { output.standardError("Checking the token and the table…\n") }
        try await makeClient(configuration: configuration).probeTable().get()
        let redis = try options.redis.map(checkedRedis)
        var members: [(SecretsKey, JSONValue)] = [
            options.tokenCommand.map { (.tokenCommand, .array($0.map(JSONValue.string))) } ?? (.token, .string(token)),
            (.baseId, .string(baseID)), (.table, .string(table)),
        ]
        if let endpoint { members.append((.endpoint, .string(endpoint.absoluteString))) }
        if let redis = options.redis { members.append((.redis, .string(redis))) }
        var note = ""
        if let profile {
            let (text, moved) = (existing ?? SecretsFile(path: path, values: [:], mode: 0o600)).adding(
                profile: profile, members)
            try SecretsFile.write(text, to: path, replacing: existing != nil, privateDirectory: options.path == nil)
            if moved { note = " The file's own settings are now profile \"main\", still the default." }
        } else {
            try SecretsFile.write(
                JSONValue.object(members.map { ($0.0.rawValue, $0.1) }).serialized(), to: path,
                replacing: options.force, privateDirectory: options.path == nil)
        }
        guard !options.quiet else { return }
        let named = profile.map { " as profile \"\($0)\"" } ?? ""
        let source =
            options.tokenCommand.map { "token from \(TokenCommand.display($0))" }
            ?? "token \(configuration.maskedToken)"
        let shared = redis.map { ", Redis \($0.display)" } ?? ""
        let saved = "Saved \(path)\(named) (\(source), base \(baseID), table \"\(table)\"\(shared)).\(note)\n"
        // Piped (a provisioning script), one line naming the file; on a terminal, what to do next as well.
        guard output.isStderrTerminal else { return output.standardError(saved) }
        output.standardError(
            saved + tasksLine(schema, table: table) + "Try: tracker \(profile.map { "--profile \($0) " } ?? "")list\n")
    }

    /// `--redis URL`, read as every command reads it, then one round trip (connect, authenticate, PING): a typo or a
    /// wrong password is found now, not by the first cron run on another machine.
    private func checkedRedis(_ text: String) throws -> RedisAddress {
        let address: RedisAddress
        switch RedisAddress.parse(text, certificateAuthority: context.environment["TRACKER_REDIS_CA"]) {
        case .success(let parsed): address = parsed
        case .failure(let invalid): throw AppError.usage("--redis: \(invalid.reason)", command: "init")
        }
        if let password = address.password { output.conceal(password) }
        do throws(RedisFailure) {
            _ = try RedisConnection(address: address).command(["PING"])
        } catch {
            throw error.problem(at: address.display)
        }
        return address
    }

    /// Where the tasks are, from the schema init read to list the tables (no request of its own); empty without it.
    private func tasksLine(_ schema: BaseSchema?, table: String) -> String {
        guard let schema else { return "" }
        guard let tasks = try? TaskLayout.resolve(.template, projects: schema.table(table), schema: schema) else {
            return "This base has no Tasks table; the task commands need one.\n"
        }
        return "Tasks: \"\(TextCells.folded(tasks.name))\" (tracker tasks, tracker task add …).\n"
    }

    /// The secrets file already at `path`, read so a new profile can keep everything else; nil when there is none.
    private func existingFile(at path: String) throws -> SecretsFile? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard invocation.globals.profile != nil else { return SecretsFile(path: path, values: [:], mode: 0) }
        return try SecretsFile.read(path: path, mode: info.st_mode).get()
    }

    /// Where to write: `--path`, else `$XDG_CONFIG_HOME/tracker/Secrets.json`, else `~/.config/tracker/Secrets.json`.
    private func secretsPath(_ options: Init) throws -> String {
        if let path = options.path {
            return absolutePath(path)
        }
        guard let path = SecretsFile.userPath(environment: context.environment) else {
            throw AppError.usage("neither XDG_CONFIG_HOME nor HOME is set; pass --path FILE", command: "init")
        }
        return path
    }

    /// On a terminal, asks (the token without echo); otherwise the token is stdin's first line and `--base` is needed.
    /// With `--token-command` the token comes from the command, now for the check and on every run after.
    private func askOrRead(_ options: Init, endpoint: URL) async throws -> (
        token: String, baseID: String, table: String, schema: BaseSchema?
    ) {
        let defaultTable = options.table ?? Configuration.templateTable
        let needsBase = AppError.usage("init needs --base ID when stdin is not a terminal", command: "init")
        if let command = options.tokenCommand {
            let token = try TokenCommand.run(command).get()
            if let base = options.base { return (token, base, defaultTable, nil) }
            guard context.isStdinTerminal else { throw needsBase }
            let (base, table, schema) = try await pickBaseAndTable(
                token: token, endpoint: endpoint, table: defaultTable)
            return (token, base, table, schema)
        }
        guard context.isStdinTerminal else {
            let input = String(decoding: context.readStandardInput(), as: UTF8.self)
            let token =
                input.split(separator: "\n", maxSplits: 1).first.map(String.init)?
                .trimmingWhitespaceAndNewlines() ?? ""
            guard !token.isEmpty else {
                throw AppError.usage(
                    "init reads the token from stdin's first line when stdin is not a terminal, and got none",
                    command: "init")
            }
            guard let base = options.base else { throw needsBase }
            return (token, base, defaultTable, nil)
        }
        output.standardError(Self.scopesAdvice)
        guard
            let token = context.readSecret("Token (typing is hidden): ")?.trimmingWhitespaceAndNewlines(),
            !token.isEmpty
        else { throw AppError.usage("no token was typed", command: "init") }
        if options.base != nil {
            let (base, table) = try askBaseAndTable(base: options.base, table: defaultTable)
            return (token, base, table, nil)
        }
        let (base, table, schema) = try await pickBaseAndTable(token: token, endpoint: endpoint, table: defaultTable)
        return (token, base, table, schema)
    }

    /// Every scope tracker can use and what it gives, for a person about to create a token.
    static let scopesAdvice = """
        Create a token at https://airtable.com/create/tokens with access to your base
        and these scopes:
          data.records:read           list, show, report, calendar, changes (needed)
          data.records:write          add, update, done, reopen, delete, import
          schema.bases:read           your base's fields, views and choices; bases here
          data.recordComments:read    comments, and the newest at the end of show
          data.recordComments:write   comment
          user.email:read             your email in doctor (--mine works without it)
          webhook:manage              board, mcp and changes hear of deletions at once
                                      (else a listing of ids every 5 minutes)

        """

    /// Offers the bases the token reaches, by number, then the chosen base's tables (the template's first); a typed
    /// id or name is taken as it is. Without `schema.bases:read` nothing can be listed: the id is asked for.
    private func pickBaseAndTable(token: String, endpoint: URL, table defaultTable: String) async throws -> (
        String, String, BaseSchema?
    ) {
        func client(_ base: String) -> ProjectAPIClient {
            makeClient(
                configuration: Configuration(
                    token: token, baseID: base, table: defaultTable, endpoint: endpoint, secretsPath: nil,
                    environmentKeys: []))
        }
        guard case .success(let bases?) = await client("appUNKNOWN0000000").bases(), !bases.isEmpty else {
            output.standardError("(With schema.bases:read, tracker would list your bases here.)\n")
            let (base, table) = try askBaseAndTable(base: nil, table: defaultTable)
            return (base, table, nil)
        }
        let base = try choose(
            "Base", among: bases.map { ($0.id, "\(StandardErrorText.safe($0.name)) (\($0.id))") },
            typed: { $0.hasPrefix("app") ? $0 : nil })
        guard case .success(let body?) = await client(base).schemaBody(),
            let schema = try? BaseSchema(airtable: body), !schema.tables.isEmpty
        else {
            return (base, ask("Table", default: defaultTable) ?? defaultTable, nil)
        }
        let tables = schema.tables.sorted { ($0.name == defaultTable ? 0 : 1) < ($1.name == defaultTable ? 0 : 1) }
        let table = try choose(
            "Table", among: tables.map { ($0.name, StandardErrorText.safe($0.name)) },
            typed: { typed in tables.first { $0.name.lowercased() == typed.lowercased() || $0.id == typed }?.name })
        return (base, table, schema)
    }

    /// Lists `choices` by number and reads one: a number, or what `typed` accepts; empty is the first.
    private func choose(_ what: String, among choices: [(value: String, label: String)], typed: (String) -> String?)
        throws -> String
    {
        output.standardError("\(what)s:\n")
        for (index, choice) in choices.enumerated() { output.standardError("  \(index + 1)) \(choice.label)\n") }
        let answer = ask("\(what) (1-\(choices.count))", default: "1") ?? "1"
        if let number = Int(answer), (1...choices.count).contains(number) { return choices[number - 1].value }
        if let value = typed(answer) { return value }
        throw AppError.usage(
            "'\(StandardErrorText.safe(answer))' is not one of the \(what.lowercased())s listed", command: "init")
    }

    /// Asks for the base id and the table at the terminal, offering what is known.
    private func askBaseAndTable(base known: String?, table defaultTable: String) throws -> (String, String) {
        let base = ask("Base id (the app… part of the base's URL)", default: known)
        guard let base, !base.isEmpty else { throw AppError.usage("no base id was typed", command: "init") }
        let table = ask("Table", default: defaultTable) ?? defaultTable
        return (base, table.isEmpty ? defaultTable : table)
    }

    private func ask(_ question: String, default value: String?) -> String? {
        output.standardError(question + (value.map { " [\($0)]" } ?? "") + ": ")
        let answer = context.readLine()?.trimmingWhitespace()
        return (answer?.isEmpty ?? true) ? value : answer
    }
}
