import Foundation
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

extension Invocation {
    /// Parses argv (without the program name) into an invocation, or a usage error naming what was wrong; relative
    /// dates (`friday`, `+2w`) are resolved against `today`.
    static func parse(_ arguments: [String], today: CalendarDate) -> Result<Invocation, AppError> {
        Result {
            let scanned = try scan(arguments)
            let globals = try globalOptions(scanned)
            if scanned.has("--version") { return Invocation(command: .version, globals: globals) }
            guard let spec = scanned.command else {
                return Invocation(command: .help(topic: nil), globals: globals)
            }
            if scanned.has("--help") { return Invocation(command: .help(topic: spec.name), globals: globals) }
            let command: Command
            switch spec.name {
            case "list": command = .list(try listOptions(scanned, today: today))
            case "add": command = .add(try addOptions(scanned, today: today))
            case "show": command = .show(try showOptions(scanned))
            case "update": command = .update(try updateOptions(scanned, today: today))
            case "done": command = .done(try projectsOptions(scanned))
            case "reopen": command = .reopen(try projectsOptions(scanned))
            case "delete": command = .delete(try projectsOptions(scanned))
            case "import": command = .importProjects(try importOptions(scanned))
            case "init":
                try rejectPositionals(scanned)
                command = .initialize(
                    InitOptions(
                        base: try scanned.nonEmpty("--base"), table: try scanned.nonEmpty("--table"),
                        path: try scanned.nonEmpty("--path"), force: scanned.has("--force"),
                        tokenCommand: try tokenCommand(scanned)))
            case "doctor":
                try rejectPositionals(scanned)
                command = .doctor(json: scanned.has("--json"))
            case "completion": command = .completion(try shell(scanned))
            default: command = scanned.has("--man") ? .manual : .help(topic: try helpTopic(scanned))
            }
            return Invocation(command: command, globals: globals)
        }.mapError { $0 as? AppError ?? .usage("\($0)", command: nil) }
    }

    // MARK: - Scanning

    private static func scan(_ arguments: [String]) throws -> ScannedArguments {
        var scanned = ScannedArguments()
        let commandIndex = findCommand(arguments)
        let word = commandIndex.map { arguments[$0] }
        scanned.command = word.flatMap(CommandSpec.named)
        // Help wins over every other problem on the line: `add -h --name` shows add's page.
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            scanned.values["--help"] = [""]
            return scanned
        }
        if let word, scanned.command == nil {
            let suggestion = Suggestion.ending(for: word, in: CommandSpec.all.map(\.name), quote: "'")
            throw AppError.usage("unknown command '\(word)'.\(suggestion)", command: nil)
        }
        let flags = (scanned.command?.flags ?? []) + CommandSpec.globalFlags + [FlagSpec(name: "--version", help: "")]
        let context = scanned.command?.name
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            defer { index += 1 }
            let argument = arguments[index]
            if index == commandIndex { continue }
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                scanned.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            let (name, inline) = split(argument)
            guard let flag = flags.first(where: { $0.name == name || $0.short == name }) else {
                throw misplaced(name, in: context, among: flags)
            }
            guard let placeholder = flag.value else {
                if inline != nil { throw AppError.usage("\(flag.name) does not take a value", command: context) }
                scanned.values[flag.name, default: []].append("")
                continue
            }
            var value: String
            if let inline {
                value = inline
            } else if index + 1 < arguments.count, !isFlag(arguments[index + 1], among: flags) {
                index += 1
                value = arguments[index]
            } else {
                throw AppError.usage("\(flag.name) needs a value (\(placeholder))", command: context)
            }
            if flag.checksChoices && !flag.choices.isEmpty {
                // Choices ignore case: --sort Due, --format JSON.
                guard let choice = flag.choices.first(where: { $0.lowercased() == value.lowercased() }) else {
                    throw AppError.usage(
                        "\(flag.name) must be one of \(flag.choices.joined(separator: ", ")), not '\(value)'",
                        command: context)
                }
                value = choice
            }
            // A flag given twice: the last one wins, so an alias can be overridden (repeatable ones add up).
            if flag.repeatable {
                scanned.values[flag.name, default: []].append(value)
            } else {
                scanned.values[flag.name] = [value]
            }
        }
        return scanned
    }

    /// The error for a flag this command does not have: where it belongs if another command has it, else a guess.
    private static func misplaced(_ name: String, in context: String?, among flags: [FlagSpec]) -> AppError {
        let owners = CommandSpec.all.filter { $0.flag(named: name) != nil }.map(\.name)
        if let owner = owners.first {
            let list = owners.map { "'tracker \($0)'" }.joined(separator: ", ")
            guard let context else {
                return .usage(
                    "\(name) belongs to \(list); put the command first: tracker \(owner) \(name) …", command: nil)
            }
            return .usage("\(name) is not a flag of 'tracker \(context)'; it belongs to \(list)", command: context)
        }
        let names = flags.map(\.name).filter { $0 != "--version" || context == nil }
        let suggestion = Suggestion.ending(for: name, in: names, quote: "'")
        let scope = context.map { " for 'tracker \($0)'" } ?? ""
        return .usage("unknown flag '\(name)'\(scope).\(suggestion)", command: context)
    }

    /// The index of the subcommand word: the first bare word that is not the value of a flag (global or any
    /// command's, so `tracker --limit 5 list` finds list).
    private static func findCommand(_ arguments: [String]) -> Int? {
        let valued = Set(
            (CommandSpec.globalFlags + CommandSpec.all.flatMap(\.flags)).filter { $0.value != nil }.flatMap {
                [$0.name] + ($0.short.map { [$0] } ?? [])
            })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if !argument.hasPrefix("-") || argument == "-" { return index }
            let (name, inline) = split(argument)
            if inline == nil, valued.contains(name) { index += 1 }
            index += 1
        }
        return nil
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func isFlag(_ argument: String, among flags: [FlagSpec]) -> Bool {
        let name = split(argument).0
        return flags.contains { $0.name == name || $0.short == name }
    }

    // MARK: - Meaning

    private static func globalOptions(_ scanned: ScannedArguments) throws -> GlobalOptions {
        var globals = GlobalOptions()
        let context = scanned.command?.name
        globals.secretsPath = scanned.last("--secrets")
        globals.profile = try scanned.nonEmpty("--profile")
        if let text = scanned.last("--timeout") {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw AppError.usage(
                    "--timeout must be a whole number of seconds from 1 to 3600, not '\(text)'", command: context)
            }
            globals.timeoutSeconds = seconds
        }
        globals.isVerbose = scanned.has("--verbose")
        globals.color = scanned.last("--color").flatMap(ColorChoice.init(rawValue:)) ?? .auto
        return globals
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

    private static func rejectPositionals(_ scanned: ScannedArguments, allowed: Int = 0) throws {
        guard scanned.positionals.count > allowed else { return }
        let extra = scanned.positionals.dropFirst(allowed).map { "'\($0)'" }.joined(separator: " ")
        throw AppError.usage(
            "unexpected argument \(extra); quote values that contain spaces", command: scanned.command?.name)
    }

    private static func listOptions(_ scanned: ScannedArguments, today: CalendarDate) throws -> ListOptions {
        try rejectPositionals(scanned)
        var options = ListOptions()
        func count(_ flag: String, minimum: Int) throws -> Int? {
            guard let value = scanned.last(flag) else { return nil }
            guard let number = Int(value), number >= minimum, number <= 1_000_000 else {
                throw AppError.usage(
                    "\(flag) must be a whole number from \(minimum) to 1,000,000, not '\(value)'", command: "list")
            }
            return number
        }
        try scanned.rejectTogether("--complete", "--incomplete")
        try scanned.rejectTogether("--overdue", "--complete")
        if scanned.has("--desc") && !scanned.has("--sort") {
            throw AppError.usage("--desc needs --sort FIELD", command: "list")
        }
        options.filters.dueBefore = try scanned.date("--due-before", today: today)
        options.filters.overdue = scanned.has("--overdue")
        options.filters.dueWithinDays = try count("--due-within", minimum: 0)
        options.filters.complete = scanned.has("--complete") ? true : scanned.has("--incomplete") ? false : nil
        options.filters.category = try scanned.nonEmpty("--category")
        options.filters.lead = try scanned.nonEmpty("--lead")
        options.filters.search = try scanned.nonEmpty("--search")
        options.sort = try scanned.nonEmpty("--sort").map { text in
            SortField(rawValue: text.lowercased()).map(SortKey.word)
                ?? .field(text.trimmingCharacters(in: .whitespaces))
        }
        options.descending = scanned.has("--desc")
        options.limit = try count("--limit", minimum: 1)
        options.view = try scanned.nonEmpty("--view").map { $0.trimmingCharacters(in: .whitespaces) }
        if let text = scanned.last("--columns") {
            options.columns = try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
                let name = item.trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else {
                    throw AppError.usage(
                        "--columns has an empty name; it takes \(ListColumn.standard.map(\.rawValue).joined(separator: " ")) or the base's field names",
                        command: "list")
                }
                return ListColumn(standardName: name) ?? .field(name)
            }
            if scanned.has("--json") || ["json", "ndjson"].contains(scanned.last("--format") ?? "") {
                throw AppError.usage(
                    "--columns is for the table, tsv and csv; JSON carries every field", command: "list")
            }
        }
        if scanned.has("--json") {
            if let format = scanned.last("--format"), format != "json" {
                throw AppError.usage("--json and --format \(format) cannot be used together", command: "list")
            }
            options.format = .json
        } else {
            options.format = scanned.last("--format").flatMap(ListFormat.init(rawValue:))
        }
        return options
    }

    private static func addOptions(_ scanned: ScannedArguments, today: CalendarDate) throws -> AddOptions {
        try rejectPositionals(scanned)
        let input = try projectInput(scanned, today: today)
        guard input.name != nil else { throw AppError.usage("add needs --name NAME", command: "add") }
        return AddOptions(input: input, ifAbsent: scanned.has("--if-absent"), mode: try writeMode(scanned))
    }

    private static func updateOptions(_ scanned: ScannedArguments, today: CalendarDate) throws -> UpdateOptions {
        let target = try target(scanned)
        try rejectPositionals(scanned, allowed: 1)
        let input = try projectInput(scanned, today: today)
        guard !input.isEmpty else {
            throw AppError.usage(
                "update needs something to change, e.g. --due friday or --clear notes", command: "update")
        }
        return UpdateOptions(target: target, input: input, mode: try writeMode(scanned))
    }

    private static func projectsOptions(_ scanned: ScannedArguments) throws -> ProjectsOptions {
        let name = scanned.command?.name ?? ""
        guard !scanned.positionals.isEmpty else {
            throw AppError.usage("\(name) needs one or more project ids or names", command: name)
        }
        for target in scanned.positionals { try checkTarget(target, command: name) }
        return ProjectsOptions(
            targets: scanned.positionals, mode: try writeMode(scanned), confirmed: scanned.has("--yes"))
    }

    /// The values of a project's field flags, shared by `add` and `update`, checked as far as no request is needed.
    private static func projectInput(_ scanned: ScannedArguments, today: CalendarDate) throws -> ProjectInput {
        let command = scanned.command?.name
        func text(_ flag: String) throws -> String? {
            guard let value = try scanned.nonEmpty(flag) else { return nil }
            try TextRules.refuseControlCharacters(value, flag: flag, command: command)
            return value
        }
        /// A name, email or id given to a flag, without the spaces around it.
        func item(_ flag: String, _ value: String) throws -> String {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw AppError.usage("\(flag) must not be empty", command: command) }
            try TextRules.refuseControlCharacters(trimmed, flag: flag, command: command)
            return trimmed
        }
        func person(_ flag: String, _ value: String) throws -> String {
            let trimmed = try item(flag, value)
            guard trimmed.contains("@") else { return trimmed }
            let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !trimmed.contains(" ") else {
                throw AppError.usage("\(flag) '\(value)' is not an email address", command: command)
            }
            return trimmed
        }
        try scanned.rejectTogether("--notes", "--notes-file")
        try scanned.rejectTogether("--complete", "--incomplete")
        var input = ProjectInput(
            name: try text("--name"), due: try scanned.date("--due", today: today),
            kickoff: try scanned.date("--kickoff", today: today), category: try text("--category"),
            lead: try scanned.last("--lead").map { try person("--lead", $0) },
            team: scanned.has("--team") ? try scanned.all("--team").map { try person("--team", $0) } : nil,
            clients: scanned.has("--client") ? try scanned.all("--client").map { try item("--client", $0) } : nil,
            complete: scanned.has("--complete") ? true : scanned.has("--incomplete") ? false : nil)
        if let text = scanned.last("--notes") {
            try TextRules.refuseControlCharacters(text, flag: "--notes", command: command, allowingLineBreaks: true)
            input.notes = .text(text)
        }
        if let path = scanned.last("--notes-file") { input.notes = path == "-" ? .standardInput : .file(path) }
        (input.cleared, input.clearedFields) = try cleared(scanned, input: input)
        input.assignments = try scanned.all("--set").map { try assignment($0, command: command) }
        return input
    }

    /// `--set FIELD=VALUE`: split at the first `=`; the field must be named, the value may hold anything.
    private static func assignment(_ text: String, command: String?) throws -> FieldAssignment {
        guard let equals = text.firstIndex(of: "=") else {
            throw AppError.usage("--set needs FIELD=VALUE, e.g. --set Budget=1200, not '\(text)'", command: command)
        }
        let field = text[..<equals].trimmingCharacters(in: .whitespaces)
        guard !field.isEmpty else { throw AppError.usage("--set '\(text)' names no field", command: command) }
        try TextRules.refuseControlCharacters(field, flag: "--set", command: command)
        return FieldAssignment(field: field, value: String(text[text.index(after: equals)...]))
    }

    /// `--clear kickoff,notes,Budget` (repeatable): tracker's words and the base's own fields to empty, none of the
    /// words also given a value. Field names are checked against the base when the command runs.
    private static func cleared(_ scanned: ScannedArguments, input: ProjectInput) throws -> (
        [FieldMap.Word], [String]
    ) {
        var words: [FieldMap.Word] = []
        var fields: [String] = []
        for value in scanned.all("--clear") {
            for item in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty
            {
                if let word = FieldMap.Word(rawValue: item.lowercased()) {
                    guard word != .name else {
                        throw AppError.usage("--clear cannot empty name: every project needs one", command: "update")
                    }
                    if !words.contains(word) { words.append(word) }
                } else {
                    try TextRules.refuseControlCharacters(item, flag: "--clear", command: "update")
                    if !fields.contains(item) { fields.append(item) }
                }
            }
        }
        let given: [FieldMap.Word: Bool] = [
            .kickoff: input.kickoff != nil, .lead: input.lead != nil, .team: input.team != nil,
            .client: input.clients != nil, .notes: input.notes != nil, .category: input.category != nil,
            .due: input.due != nil, .complete: input.complete != nil,
        ]
        if let both = words.first(where: { given[$0] == true }) {
            let flag = both == .complete ? (input.complete == true ? "--complete" : "--incomplete") : both.flag
            throw AppError.usage("\(flag) and --clear \(both.rawValue) cannot be used together", command: "update")
        }
        return (words, fields)
    }

    private static func importOptions(_ scanned: ScannedArguments) throws -> ImportOptions {
        try rejectPositionals(scanned, allowed: 1)
        var options = ImportOptions(file: scanned.positionals.first, mode: try writeMode(scanned))
        options.format = scanned.last("--format").flatMap(ImportFormat.init(rawValue:))
        if let text = scanned.last("--key") {
            var key: [FieldMap.Word] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let word = item.trimmingCharacters(in: .whitespaces).lowercased()
                guard let field = FieldMap.Word(rawValue: word), [.name, .due, .category].contains(field) else {
                    throw AppError.usage(
                        "--key takes up to three of name, due, category, not '\(item)'", command: "import")
                }
                if !key.contains(field) { key.append(field) }
            }
            options.key = key
        }
        return options
    }

    private static func writeMode(_ scanned: ScannedArguments) throws -> WriteMode {
        try scanned.rejectTogether("--json", "--quiet")
        return WriteMode(dryRun: scanned.has("--dry-run"), json: scanned.has("--json"), quiet: scanned.has("--quiet"))
    }

    /// The one project a command names.
    private static func target(_ scanned: ScannedArguments) throws -> String {
        let name = scanned.command?.name ?? ""
        guard let target = scanned.positionals.first else {
            throw AppError.usage("\(name) needs a project id or name", command: name)
        }
        try checkTarget(target, command: name)
        return target
    }

    private static func checkTarget(_ target: String, command: String) throws {
        guard !target.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw AppError.usage("\(command) needs a project id or name, not an empty string", command: command)
        }
        try TextRules.refuseControlCharacters(target, flag: "the project name", command: command)
    }

    private static func showOptions(_ scanned: ScannedArguments) throws -> ShowOptions {
        let target = try target(scanned)
        try rejectPositionals(scanned, allowed: 1)
        return ShowOptions(target: target, json: scanned.has("--json"))
    }

    private static func shell(_ scanned: ScannedArguments) throws -> Shell {
        try rejectPositionals(scanned, allowed: 1)
        let names = Shell.allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = scanned.positionals.first else {
            throw AppError.usage("completion needs a shell: \(names)", command: "completion")
        }
        guard let shell = Shell(rawValue: name) else {
            throw AppError.usage("unsupported shell '\(name)'; expected one of: \(names)", command: "completion")
        }
        return shell
    }

    private static func helpTopic(_ scanned: ScannedArguments) throws -> String? {
        try rejectPositionals(scanned, allowed: 1)
        guard let topic = scanned.positionals.first else { return nil }
        guard CommandSpec.named(topic) != nil else {
            let suggestion = Suggestion.ending(for: topic, in: CommandSpec.all.map(\.name), quote: "'")
            throw AppError.usage("no help for unknown command '\(topic)'.\(suggestion)", command: nil)
        }
        return topic
    }
}
