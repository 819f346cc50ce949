#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// The flags and positional words of one command line, before they are given meaning.
package struct ScannedArguments {
    package var command: CommandSpec?
    package var values: [String: [String]] = [:]
    package var positionals: [String] = []

    package func has(_ flag: String) -> Bool { values[flag] != nil }
    package func last(_ flag: String) -> String? { values[flag]?.last }
    package func all(_ flag: String) -> [String] { values[flag] ?? [] }

    /// The flag's value, which must hold more than white space.
    package func nonEmpty(_ flag: String) throws -> String? {
        guard let value = last(flag) else { return nil }
        guard !value.trimmingWhitespaceAndNewlines().isEmpty else {
            throw AppError.usage("\(flag) must not be empty", command: command?.name)
        }
        return value
    }

    /// The flag's date, in any form docs/contract.md lists; a malformed or impossible one is a usage error naming the
    /// flag.
    package func date(_ flag: String, today: CalendarDate) throws -> CalendarDate? {
        guard let text = last(flag) else { return nil }
        switch DateInput.read(text, today: today) {
        case .date(let date): return date
        case .impossible: throw AppError.usage("\(flag) '\(text)' is not a real date", command: command?.name)
        case .unrecognized:
            throw AppError.usage("\(flag) '\(text)' is not a date; use \(DateInput.forms)", command: command?.name)
        }
    }

    /// Fails when both flags were given.
    package func rejectTogether(_ first: String, _ second: String) throws {
        if has(first) && has(second) {
            throw AppError.usage("\(first) and \(second) cannot be used together", command: command?.name)
        }
    }

    /// Refuses words past the first `allowed` positional ones.
    package func rejectPositionals(allowed: Int = 0) throws {
        guard positionals.count > allowed else { return }
        let extra = positionals.dropFirst(allowed).map { "'\($0)'" }.joined(separator: " ")
        throw AppError.usage(
            "unexpected argument \(extra); quote values that contain spaces", command: command?.name)
    }

    /// The output format asked for by name: `--json` is `--format json`, and the two may not disagree.
    package func formatName() throws -> String? {
        guard has("--json") else { return last("--format") }
        if let format = last("--format"), format != "json" {
            throw AppError.usage("--json and --format \(format) cannot be used together", command: command?.name)
        }
        return "json"
    }
    /// Each stored value given.
    package init(command: CommandSpec? = nil, values: [String: [String]] = [:], positionals: [String] = []) {
        self.command = command
        self.values = values
        self.positionals = positionals
    }
}

extension ScannedArguments {
    /// Records one flag as a face was given it (nil for a switch): a value is checked against the flag's choices,
    /// ignoring case (`--sort Due`, `--format JSON`); of a flag given twice the last wins, so an alias can be
    /// overridden, and repeatable ones add up.
    package mutating func record(_ flag: FlagSpec, value: String?) throws {
        guard var value else {
            values[flag.name, default: []].append("")
            return
        }
        if flag.checksChoices && !flag.choices.isEmpty {
            guard let choice = flag.choices.first(where: { $0.lowercased() == value.lowercased() }) else {
                throw AppError.usage(
                    "\(flag.name) must be one of \(flag.choices.joined(separator: ", ")), not '\(value)'",
                    command: command?.name)
            }
            value = choice
        }
        if flag.repeatable {
            values[flag.name, default: []].append(value)
        } else {
            values[flag.name] = [value]
        }
    }
}

extension ScannedArguments: Equatable {
    /// The same command, flags and words.
    package static func == (left: ScannedArguments, right: ScannedArguments) -> Bool {
        left.command?.name == right.command?.name && left.values == right.values
            && left.positionals == right.positionals
    }
}
