#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// Positional words every command reads the same way: the projects it names.
extension ScannedArguments {
    /// The one project a command names.
    package func projectTarget() throws -> String {
        let name = command?.name ?? ""
        guard let target = positionals.first else {
            throw AppError.usage("\(name) needs a project id or name", command: name)
        }
        try checkTarget(target, command: name)
        return target
    }

    private func checkTarget(_ target: String, command: String) throws {
        guard !target.trimmingWhitespace().isEmpty else {
            throw AppError.usage("\(command) needs a project id or name, not an empty string", command: command)
        }
        try TextRules.refuseControlCharacters(target, flag: "the project name", command: command)
    }

    /// The projects a command names: one or more.
    package func projectTargets() throws -> [String] {
        let name = command?.name ?? ""
        guard !positionals.isEmpty else {
            throw AppError.usage("\(name) needs one or more project ids or names", command: name)
        }
        for target in positionals { try checkTarget(target, command: name) }
        return positionals
    }
}
