import Foundation

/// The flags and positional words of one command line, before they are given meaning.
struct ScannedArguments {
    var command: CommandSpec?
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    func has(_ flag: String) -> Bool { values[flag] != nil }
    func last(_ flag: String) -> String? { values[flag]?.last }
    func all(_ flag: String) -> [String] { values[flag] ?? [] }

    /// The flag's value, which must hold more than white space.
    func nonEmpty(_ flag: String) throws -> String? {
        guard let value = last(flag) else { return nil }
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw AppError.usage("\(flag) must not be empty", command: command?.name)
        }
        return value
    }

    /// Fails when both flags were given.
    func rejectTogether(_ first: String, _ second: String) throws {
        if has(first) && has(second) {
            throw AppError.usage("\(first) and \(second) cannot be used together", command: command?.name)
        }
    }
}

extension Invocation {
    /// Parses argv (without the program name) into an invocation, or a usage error naming what was wrong.
    public static func parse(_ arguments: [String]) -> Result<Invocation, AppError> {
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
            case "list": command = .list(try listOptions(scanned))
            case "add": command = .add(try addOptions(scanned))
            case "show": command = .show(try showOptions(scanned))
            case "doctor":
                try rejectPositionals(scanned)
                command = .doctor
            case "completion": command = .completion(try shell(scanned))
            default: command = .help(topic: try helpTopic(scanned))
            }
            return Invocation(command: command, globals: globals)
        }.mapError { $0 as? AppError ?? .usage("\($0)", command: nil) }
    }

    // MARK: - Scanning

    private static func scan(_ arguments: [String]) throws -> ScannedArguments {
        var scanned = ScannedArguments()
        let commandIndex = findCommand(arguments)
        if let commandIndex {
            let word = arguments[commandIndex]
            guard let spec = CommandSpec.named(word) else {
                let suggestion = Suggestion.closest(to: word, in: CommandSpec.all.map(\.name)).map {
                    " Did you mean '\($0)'?"
                }
                throw AppError.usage("unknown command '\(word)'.\(suggestion ?? "")", command: nil)
            }
            scanned.command = spec
        }
        let flags =
            (scanned.command?.flags ?? []) + CommandSpec.globalFlags
            + [FlagSpec(name: "--version", help: "")]
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
                let names = flags.map(\.name).filter { $0 != "--version" || context == nil }
                let suggestion = Suggestion.closest(to: name, in: names).map { " Did you mean '\($0)'?" } ?? ""
                let scope = context.map { " for 'tracker \($0)'" } ?? ""
                throw AppError.usage("unknown flag '\(name)'\(scope).\(suggestion)", command: context)
            }
            if scanned.has(flag.name) && !flag.repeatable {
                throw AppError.usage("\(flag.name) was given more than once", command: context)
            }
            guard let placeholder = flag.value else {
                if inline != nil { throw AppError.usage("\(flag.name) does not take a value", command: context) }
                scanned.values[flag.name, default: []].append("")
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index + 1 < arguments.count, !isFlag(arguments[index + 1], among: flags) {
                index += 1
                value = arguments[index]
            } else {
                throw AppError.usage("\(flag.name) needs a value (\(placeholder))", command: context)
            }
            if !flag.choices.isEmpty && flag.name != "--category" && !flag.choices.contains(value) {
                throw AppError.usage(
                    "\(flag.name) must be one of \(flag.choices.joined(separator: ", ")), not '\(value)'",
                    command: context)
            }
            scanned.values[flag.name, default: []].append(value)
        }
        return scanned
    }

    /// The index of the subcommand word: the first bare word that is not the value of a global flag.
    private static func findCommand(_ arguments: [String]) -> Int? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if !argument.hasPrefix("-") || argument == "-" { return index }
            let (name, inline) = split(argument)
            if inline == nil, CommandSpec.globalFlags.first(where: { $0.name == name })?.value != nil { index += 1 }
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

    private static func rejectPositionals(_ scanned: ScannedArguments, allowed: Int = 0) throws {
        guard scanned.positionals.count > allowed else { return }
        let extra = scanned.positionals.dropFirst(allowed).map { "'\($0)'" }.joined(separator: " ")
        throw AppError.usage(
            "unexpected argument \(extra); quote values that contain spaces", command: scanned.command?.name)
    }

    private static func listOptions(_ scanned: ScannedArguments) throws -> ListOptions {
        try rejectPositionals(scanned)
        var options = ListOptions()
        func count(_ flag: String, minimum: Int) throws -> Int? {
            guard let value = scanned.last(flag) else { return nil }
            guard let number = Int(value), number >= minimum, number <= 1_000_000 else {
                throw AppError.usage(
                    "\(flag) must be a whole number of at least \(minimum), not '\(value)'", command: "list")
            }
            return number
        }
        try scanned.rejectTogether("--complete", "--incomplete")
        try scanned.rejectTogether("--overdue", "--complete")
        if scanned.has("--desc") && !scanned.has("--sort") {
            throw AppError.usage("--desc needs --sort FIELD", command: "list")
        }
        if let text = scanned.last("--due-before") {
            guard let date = CalendarDate(text) else {
                throw AppError.usage("--due-before '\(text)' is not a real date; expected YYYY-MM-DD", command: "list")
            }
            options.filters.dueBefore = date
        }
        options.filters.overdue = scanned.has("--overdue")
        options.filters.dueWithinDays = try count("--due-within", minimum: 0)
        options.filters.complete = scanned.has("--complete") ? true : scanned.has("--incomplete") ? false : nil
        options.filters.category = try scanned.nonEmpty("--category")
        options.filters.lead = try scanned.nonEmpty("--lead")
        options.filters.search = try scanned.nonEmpty("--search")
        options.sort = scanned.last("--sort").flatMap(SortField.init(rawValue:))
        options.descending = scanned.has("--desc")
        options.limit = try count("--limit", minimum: 1)
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

    private static func addOptions(_ scanned: ScannedArguments) throws -> AddOptions {
        try rejectPositionals(scanned)
        func date(_ flag: String) throws -> CalendarDate? {
            guard let text = scanned.last(flag) else { return nil }
            guard let date = CalendarDate(text) else {
                throw AppError.usage("\(flag) '\(text)' is not a real date; expected YYYY-MM-DD", command: "add")
            }
            return date
        }
        func email(_ flag: String, _ value: String) throws -> String {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !trimmed.contains(" ") else {
                throw AppError.usage("\(flag) '\(value)' is not an email address", command: "add")
            }
            return trimmed
        }
        guard let name = scanned.last("--name") else { throw AppError.usage("add needs --name NAME", command: "add") }
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw AppError.usage("--name must not be empty", command: "add")
        }
        guard let due = try date("--due") else { throw AppError.usage("add needs --due YYYY-MM-DD", command: "add") }
        try scanned.rejectTogether("--notes", "--notes-file")
        try scanned.rejectTogether("--json", "--quiet")
        let draft = ProjectDraft(
            name: name, due: due, kickoff: try date("--kickoff"), category: try scanned.nonEmpty("--category"),
            leadEmail: try scanned.last("--lead").map { try email("--lead", $0) },
            teamEmails: try scanned.all("--team").map { try email("--team", $0) },
            clients: try scanned.all("--client").map { value in
                guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw AppError.usage("--client must not be empty", command: "add")
                }
                return value
            },
            isComplete: scanned.has("--complete"))
        var notes: NotesSource?
        if let text = scanned.last("--notes") { notes = .text(text) }
        if let path = scanned.last("--notes-file") { notes = path == "-" ? .standardInput : .file(path) }
        return AddOptions(
            draft: draft, notesSource: notes, ifAbsent: scanned.has("--if-absent"), dryRun: scanned.has("--dry-run"),
            json: scanned.has("--json"), quiet: scanned.has("--quiet"))
    }

    private static func showOptions(_ scanned: ScannedArguments) throws -> ShowOptions {
        guard let target = scanned.positionals.first else {
            throw AppError.usage("show needs a project id or name", command: "show")
        }
        try rejectPositionals(scanned, allowed: 1)
        guard !target.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw AppError.usage("show needs a project id or name, not an empty string", command: "show")
        }
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
            let suggestion = Suggestion.closest(to: topic, in: CommandSpec.all.map(\.name)).map {
                " Did you mean '\($0)'?"
            }
            throw AppError.usage("no help for unknown command '\(topic)'.\(suggestion ?? "")", command: nil)
        }
        return topic
    }
}
