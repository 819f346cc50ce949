#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// `tracker completion`: prints a shell completion script.
struct Completion: Command {
    static let spec = CommandSpec(
        name: "completion", facts: [.sendsNothing], summary: "Print a shell completion script (bash, zsh or fish).",
        usage: ["tracker completion bash|zsh|fish"], positional: "SHELL", arguments: .shells, flags: [],
        examples: [
            "eval \"$(tracker completion bash)\"    # in ~/.bashrc",
            "tracker completion zsh > \"${fpath[1]}/_tracker\"",
            "tracker completion fish > ~/.config/fish/completions/tracker.fish",
        ],
        notes: ["For zsh, run 'autoload -U compinit && compinit' once the file is on $fpath."])

    var shell: Shell

    func run(_ runner: Runner) async throws { try runner.output.standardOutput(CompletionScript.script(for: shell)) }
}

extension Completion {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        try scanned.rejectPositionals(allowed: 1)
        let names = Shell.allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = scanned.positionals.first else {
            throw AppError.usage("completion needs a shell: \(names)", command: "completion")
        }
        guard let shell = Shell(rawValue: name) else {
            throw AppError.usage("unsupported shell '\(name)'; expected one of: \(names)", command: "completion")
        }
        self.init(shell: shell)
    }
}
