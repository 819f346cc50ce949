import Foundation

extension Runner {
    /// `tracker init`: asks for (or reads) the token, base and table, checks them with one read, and only then writes
    /// the secrets file, 0600 in a 0700 directory.
    func initialize(_ options: InitOptions) async throws {
        let path = try secretsPath(options)
        if FileManager.default.fileExists(atPath: path) && !options.force {
            throw AppError.usage(
                "\(path) already exists; pass --force to replace it, or --path to write another file", command: "init")
        }
        let (token, baseID, table) = try askOrRead(options)
        let endpoint = try ConfigurationLoader.endpoint(context.environment["AIRTABLE_ENDPOINT_URL"])
        try ConfigurationLoader.check(token: token, baseID: baseID, origin: "what was typed")
        let configuration = Configuration(
            token: token, baseID: baseID, table: table, endpoint: endpoint ?? Configuration.defaultEndpoint,
            secretsPath: path, environmentKeys: [])
        if output.isStderrTerminal { output.standardError("Checking the token and the table…\n") }
        try await makeClient(configuration: configuration).probeTable().get()
        var members: [(String, JSONValue)] = [
            ("token", .string(token)), ("baseId", .string(baseID)), ("table", .string(table)),
        ]
        if let endpoint { members.append(("endpoint", .string(endpoint.absoluteString))) }
        try SecretsFile.write(
            JSONValue.object(members).serialized(), to: path, replacing: options.force,
            privateDirectory: options.path == nil)
        if output.isStderrTerminal {
            output.standardError(
                "Saved \(path) (token \(configuration.maskedToken), base \(baseID), table \"\(table)\").\nTry: tracker list\n"
            )
        }
    }

    /// Where to write: `--path`, else `$XDG_CONFIG_HOME/tracker/Secrets.json`, else `~/.config/tracker/Secrets.json`.
    private func secretsPath(_ options: InitOptions) throws -> String {
        if let path = options.path {
            return absolutePath(path)
        }
        guard let path = SecretsFile.userPath(environment: context.environment) else {
            throw AppError.usage("neither XDG_CONFIG_HOME nor HOME is set; pass --path FILE", command: "init")
        }
        return path
    }

    /// On a terminal, asks (the token without echo); otherwise the token is stdin's first line and `--base` is needed.
    private func askOrRead(_ options: InitOptions) throws -> (token: String, baseID: String, table: String) {
        let defaultTable = options.table ?? "Design projects"
        guard context.isStdinTerminal else {
            let input = String(decoding: context.readStandardInput(), as: UTF8.self)
            let token =
                input.split(separator: "\n", maxSplits: 1).first.map(String.init)?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !token.isEmpty else {
                throw AppError.usage(
                    "init reads the token from stdin's first line when stdin is not a terminal, and got none",
                    command: "init")
            }
            guard let base = options.base else {
                throw AppError.usage("init needs --base ID when stdin is not a terminal", command: "init")
            }
            return (token, base, defaultTable)
        }
        output.standardError("Create a token at https://airtable.com/create/tokens with the scopes\n")
        output.standardError("data.records:read and data.records:write, and give it access to your base.\n")
        guard
            let token = context.readSecret("Token (typing is hidden): ")?.trimmingCharacters(
                in: .whitespacesAndNewlines), !token.isEmpty
        else { throw AppError.usage("no token was typed", command: "init") }
        let base = ask("Base id (the app… part of the base's URL)", default: options.base)
        guard let base, !base.isEmpty else { throw AppError.usage("no base id was typed", command: "init") }
        let table = ask("Table", default: defaultTable) ?? defaultTable
        return (token, base, table.isEmpty ? defaultTable : table)
    }

    private func ask(_ question: String, default value: String?) -> String? {
        output.standardError(question + (value.map { " [\($0)]" } ?? "") + ": ")
        let answer = context.readLine()?.trimmingCharacters(in: .whitespaces)
        return (answer?.isEmpty ?? true) ? value : answer
    }
}

/// Turns terminal echo off while a secret is typed, and back on afterwards, even if Ctrl-C ends tracker meanwhile.
enum TerminalEcho {
    private static let saved = Locked<termios?>(nil)

    /// Reads one line from the terminal without echoing it.
    static func readHidden(prompt: String) -> String? {
        _ = FileDescriptorWriter.write(prompt, to: STDERR_FILENO)
        var settings = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &settings) == 0
        if isTerminal {
            saved.withLock { $0 = settings }
            var hidden = settings
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden)
        }
        defer {
            restore()
            _ = FileDescriptorWriter.write("\n", to: STDERR_FILENO)
        }
        return Swift.readLine()
    }

    /// Puts echo back if a secret was being read.
    static func restore() {
        guard
            var settings = saved.withLock({ value -> termios? in
                defer { value = nil }
                return value
            })
        else { return }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
    }
}
