#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

/// `tracker help`: help for tracker or one of its commands, or the manual page.
struct Help: Command {
    static let spec = CommandSpec(
        name: "help", facts: [.sendsNothing], summary: "Show help for tracker or one of its commands.",
        usage: ["tracker help [COMMAND] | tracker help --man"], positional: "COMMAND", arguments: .commands,
        flags: [FlagSpec(name: "--man", help: "print the manual page (roff), e.g. for man(1)")],
        examples: ["tracker help add", "tracker help --man | man -l -"])

    /// The command whose page to show; nil for tracker's own.
    var topic: String? = nil
    /// `--man`: the whole manual page in roff.
    var isManual = false

    func run(_ runner: Runner) async throws {
        try runner.output.standardOutput(isManual ? ManualPage.page : HelpPage.page(for: topic))
    }
}

extension Help {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        guard !scanned.has("--man") else {
            self.init(isManual: true)
            return
        }
        try scanned.rejectPositionals(allowed: 1)
        guard let topic = scanned.positionals.first else {
            self.init()
            return
        }
        guard CommandRegistry.spec(named: topic) != nil else {
            let suggestion = Suggestion.ending(for: topic, in: CommandRegistry.specs.map(\.name), quote: "'")
            throw AppError.usage("no help for unknown command '\(topic)'.\(suggestion)", command: nil)
        }
        self.init(topic: topic)
    }
}
