#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations

extension Init: Command {
    func run(_ runner: Runner) async throws { try await runner.initialize(self) }
}

extension Runner {
    /// Asks on a terminal (or reads stdin's first line), then says what was saved on stderr: one line when piped (a
    /// provisioning script), what to do next as well on a terminal.
    fileprivate func initialize(_ options: Init) async throws {
        let saved = try await perform(options) { setup in
            try await options.run(
                in: setup, asking: { try await askOrRead(options, endpoint: $0) },
                checking: { if output.isStderrTerminal { output.standardError("Checking the token and the table…\n") } }
            )
        }
        guard !options.quiet else { return }
        let named = saved.profile.map { " as profile \"\($0)\"" } ?? ""
        let shared = saved.redis.map { ", Redis \($0)" + (options.teamCopy ? " with the team's copy" : "") } ?? ""
        let note = saved.movedToMain ? " The file's own settings are now profile \"main\", still the default." : ""
        let line =
            "Saved \(saved.path)\(named) (\(saved.source), base \(saved.baseID), table \"\(saved.table)\"\(shared)).\(note)\n"
        guard output.isStderrTerminal else { return output.standardError(line) }
        output.standardError(
            line + tasksLine(saved.schema, table: saved.table)
                + "Try: tracker \(saved.profile.map { "--profile \($0) " } ?? "")list\n")
    }

    /// Where the tasks are, from the schema init read to list the tables (no request of its own); empty without it.
    private func tasksLine(_ schema: BaseSchema?, table: String) -> String {
        guard let schema else { return "" }
        guard let tasks = try? TaskLayout.resolve(.template, projects: schema.table(table), schema: schema) else {
            return "This base has no Tasks table; the task commands need one.\n"
        }
        return "Tasks: \"\(TextCells.folded(tasks.name))\" (tracker tasks, tracker task add …).\n"
    }

    /// On a terminal, asks (the token without echo); otherwise the token is stdin's first line and `--base` is needed.
    /// With `--token-command` the token comes from the command, now for the check and on every run after.
    private func askOrRead(_ options: Init, endpoint: URL) async throws -> Init.Answers {
        let defaultTable = options.table ?? Configuration.templateTable
        let needsBase = Init.needsBase
        if let command = options.tokenCommand {
            let token = try TokenCommand.run(command).get()
            if let base = options.base { return Init.Answers(token: token, baseID: base, table: defaultTable) }
            guard context.isStdinTerminal else { throw needsBase }
            let (base, table, schema) = try await pickBaseAndTable(
                token: token, endpoint: endpoint, table: defaultTable)
            return Init.Answers(token: token, baseID: base, table: table, schema: schema)
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
            return Init.Answers(token: token, baseID: base, table: defaultTable)
        }
        output.standardError(Self.scopesAdvice)
        guard
            let token = context.readSecret("Token (typing is hidden): ")?.trimmingWhitespaceAndNewlines(),
            !token.isEmpty
        else { throw AppError.usage("no token was typed", command: "init") }
        if options.base != nil {
            let (base, table) = try askBaseAndTable(base: options.base, table: defaultTable)
            return Init.Answers(token: token, baseID: base, table: table)
        }
        let (base, table, schema) = try await pickBaseAndTable(token: token, endpoint: endpoint, table: defaultTable)
        return Init.Answers(token: token, baseID: base, table: table, schema: schema)
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
            workspace.makeClient(
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
