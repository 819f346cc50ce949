import TrackerAPI
import TrackerModel
import TrackerOperations

/// A tool's arguments turned into its command's named arguments, checked against the tool's schema first: an argument
/// the schema does not have, or of the wrong type, is a usage error (64) naming it, and nothing runs.
package struct ToolArguments {
    package let tool: MCPTool
    package let root: FileRoot

    /// What a call's arguments ask for.
    package struct Plan: Equatable {
        /// The arguments as the command's flags and words: they become its operation's options by the command's own
        /// rules, no command line made or read.
        package var named = ScannedArguments()
        /// How many records a listing returns.
        package var limit = MCPTool.defaultLimit
        /// `complete` for `task done`/`task reopen` after any other change (update_task).
        package var completeAfter: Bool? = nil
        /// Whether the command line changes anything besides what `completeAfter` does.
        package var changesOtherFields = true
    }

    package func plan(_ arguments: JSONValue?) throws(AppError) -> Plan {
        let members: [(String, JSONValue)]
        switch arguments {
        case nil, .null?: members = []
        case .object(let given)?: members = given
        default: throw usage("the arguments must be a JSON object")
        }
        var values: [String: JSONValue] = [:]
        for (name, value) in members { values[name] = value }
        let flags = tool.offeredFlags
        let known =
            tool.positionals.map(\.name) + flags.map { MCPTool.argumentName($0.name) }
            + tool.extras.map { MCPTool.schema(of: $0).0 }
        for (name, _) in members where !known.contains(name) {
            let suggestion = Suggestion.ending(for: name, in: known, quote: "\"")
            throw usage(
                "\(tool.name) has no argument \"\(name)\".\(suggestion) It takes: \(known.joined(separator: ", "))")
        }
        var plan = Plan()
        var line: [(name: String, value: String?)] = []
        var words: [String] = []
        for positional in tool.positionals {
            guard let value = values[positional.name], !value.isNull else {
                if positional.path == .writeDirectory {
                    words.append(try root.resolve(".", for: .writeDirectory, argument: positional.name))
                } else if positional.isRequired {
                    throw usage("\(tool.name) needs \"\(positional.name)\": \(positional.description)")
                }
                continue
            }
            guard case .string(var word) = value else { throw usage("\"\(positional.name)\" must be a string") }
            if let use = positional.path { word = try root.resolve(word, for: use, argument: positional.name) }
            if let other = positional.flagWhen, values[other] != nil {
                line.append(("--\(positional.name)", word))
            } else {
                words.append(word)
            }
        }
        for flag in flags {
            let name = MCPTool.argumentName(flag.name)
            guard let value = values[name], !value.isNull else { continue }
            line += try self.flag(flag, name: name, value)
        }
        for extra in tool.extras {
            let name = MCPTool.schema(of: extra).0
            let value = values[name]
            switch extra {
            case .limit, .sectionLimit:
                if extra == .sectionLimit { plan.limit = MCPTool.defaultSectionLimit }
                guard let value, !value.isNull else { continue }
                guard let number = value.numberValue, number == number.rounded(),
                    (1...Double(MCPTool.maximumLimit)).contains(number)
                else { throw usage("\"limit\" must be a whole number from 1 to \(MCPTool.maximumLimit)") }
                plan.limit = Int(number)
            case .confirm:
                guard value == .bool(true) else {
                    throw usage(
                        "\(tool.name) needs \"confirm\": true, sent only once the person agreed; nothing was deleted")
                }
                line.append(("--yes", nil))
            case .ifAbsent:
                let on = try boolean(value ?? .bool(true), name: name)
                if on { line.append(("--if-absent", nil)) }
            case .completeFlags:
                guard let value, !value.isNull else { continue }
                line.append((try boolean(value, name: name) ? "--complete" : "--incomplete", nil))
            case .completeVerbs:
                guard let value, !value.isNull else { continue }
                plan.completeAfter = try boolean(value, name: name)
            }
        }
        if tool.extras.contains(.completeVerbs) {
            let changing = Set(values.keys).subtracting(["task", "project", "complete"])
            plan.changesOtherFields = !changing.isEmpty
            if !plan.changesOtherFields && plan.completeAfter == nil {
                throw usage(
                    "\(tool.name) needs something to change: name, assignee, estimate, notes, move_to, clear or complete"
                )
            }
        }
        let fixed = Self.pairs(tool.fixed)
        let spec = tool.command
        var named = ScannedArguments(command: spec, positionals: Array(tool.words.dropFirst()) + words)
        let specs = spec.flags + CommandSpec.globalFlags
        for pair in line + fixed {
            // The tools are read off the commands' specs: a flag the command lacks is this table's mistake, said so.
            guard let flag = specs.first(where: { $0.name == pair.name }) else {
                throw AppError.output("\(tool.name) names \(pair.name), which its command does not have")
            }
            do { try named.record(flag, value: pair.value) } catch { throw error as? AppError ?? usage("\(error)") }
        }
        plan.named = named
        return plan
    }

    /// Fixed words as flags and their values: a flag followed by a word that is not a flag takes it.
    private static func pairs(_ words: [String]) -> [(name: String, value: String?)] {
        var pairs: [(name: String, value: String?)] = []
        var index = 0
        while index < words.count {
            let next = index + 1 < words.count && !words[index + 1].hasPrefix("-") ? words[index + 1] : nil
            pairs.append((words[index], next))
            index += next == nil ? 1 : 2
        }
        return pairs
    }

    /// One flag's argument as the flag and its values (none for a switch that is off).
    private func flag(_ flag: FlagSpec, name: String, _ value: JSONValue) throws(AppError) -> [(
        name: String, value: String?
    )] {
        switch flag.type {
        case .toggle:
            return try boolean(value, name: name) ? [(flag.name, nil)] : []
        case .text, .date, .choice:
            guard case .string(let text) = value else { throw usage("\"\(name)\" must be a string") }
            return [(flag.name, text)]
        case .whole:
            guard let number = value.numberValue, number == number.rounded(), number >= 0, number < 1e9 else {
                throw usage("\"\(name)\" must be a whole number, 0 or more")
            }
            return [(flag.name, "\(Int(number))")]
        case .number:
            guard let number = value.numberValue, number >= 0 else { throw usage("\"\(name)\" must be a number") }
            return [(flag.name, "\(number)")]
        case .quantity:
            if case .string(let text) = value { return [(flag.name, text)] }
            guard let number = value.numberValue, number.isFinite else {
                throw usage("\"\(name)\" must be a number or a string such as \"2d\"")
            }
            return [(flag.name, JSONValue.number(number).serialized())]
        case .list:
            let items: [JSONValue] = value.arrayValue ?? [value]
            return try items.map { item throws(AppError) -> (name: String, value: String?) in
                guard case .string(let text) = item else { throw usage("\"\(name)\" must be an array of strings") }
                return (flag.name, text)
            }
        }
    }

    private func boolean(_ value: JSONValue, name: String) throws(AppError) -> Bool {
        guard let flag = value.boolValue else { throw usage("\"\(name)\" must be true or false") }
        return flag
    }

    private func usage(_ text: String) -> AppError { .usage(text, command: nil) }
}
