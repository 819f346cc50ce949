#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension Invocation {
    /// Parses argv (without the program name) into an invocation, or a usage error naming what was wrong; relative
    /// dates (`friday`, `+2w`) are resolved against `today`.
    static func parse(_ arguments: [String], today: CalendarDate) -> Result<Invocation, AppError> {
        Result {
            let scanned = try scan(arguments)
            let globals = try globalOptions(scanned)
            if scanned.has("--version") { return Invocation(command: Version(), globals: globals) }
            guard let spec = scanned.command, let type = CommandRegistry.command(named: spec.name) else {
                return Invocation(command: Help(), globals: globals)
            }
            if scanned.has("--help") { return Invocation(command: Help(topic: spec.name), globals: globals) }
            return Invocation(command: try type.init(scanned, today: today), globals: globals)
        }.mapError { $0 as? AppError ?? .usage("\($0)", command: nil) }
    }

    // MARK: - Scanning

    private static func scan(_ arguments: [String]) throws -> ScannedArguments {
        var scanned = ScannedArguments()
        let commandIndex = findCommand(arguments)
        let word = commandIndex.map { arguments[$0] }
        scanned.command = word.flatMap(CommandRegistry.spec(named:))
        // Help wins over every other problem on the line: `add -h --name` shows add's page.
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "-h" || $0 == "--help" }) {
            scanned.values["--help"] = [""]
            return scanned
        }
        if let word, scanned.command == nil {
            let suggestion = Suggestion.ending(for: word, in: CommandRegistry.specs.map(\.name), quote: "'")
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
                try scanned.record(flag, value: nil)
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
            try scanned.record(flag, value: value)
        }
        return scanned
    }

    /// The error for a flag this command does not have: where it belongs if another command has it, else a guess.
    private static func misplaced(_ name: String, in context: String?, among flags: [FlagSpec]) -> AppError {
        let owners = CommandRegistry.specs.filter { $0.flag(named: name) != nil }.map(\.name)
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
    /// Where the command's word is on the line: the first word that is neither a flag nor a flag's value. The parser
    /// finds it so, and so does the guess made before parsing of whether libcurl starts loading at once.
    static func findCommand(_ arguments: [String]) -> Int? {
        // The usual line starts with its command: no flag's value to step over, so no spec is needed to find it.
        if let first = arguments.first, !first.hasPrefix("-") { return 0 }
        let valued = Set(
            (CommandSpec.globalFlags + CommandRegistry.specs.flatMap(\.flags)).filter { $0.value != nil }.flatMap {
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
        if let text = scanned.last("--max-age") {
            guard let seconds = Double(text), seconds >= 0, seconds <= 86400 else {
                throw AppError.usage(
                    "--max-age must be a number of seconds from 0 to 86400, not '\(text)'", command: context)
            }
            guard let context, CommandRegistry.spec(named: context)?.facts.contains(.readsTeamCopy) == true else {
                let readers = CommandRegistry.specs.filter { $0.facts.contains(.readsTeamCopy) }.map(\.name)
                throw AppError.usage(
                    "--max-age is for the commands that only read: " + readers.sorted().joined(separator: ", "),
                    command: context)
            }
            globals.maxAge = seconds
        }
        globals.isVerbose = scanned.has("--verbose")
        globals.color = scanned.last("--color").flatMap(ColorChoice.init(rawValue:)) ?? .auto
        return globals
    }
}
