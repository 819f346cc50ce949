import CTerminal
import TrackerModel
import TrackerOperations
/// `tracker --version`: the version a bug report needs, which the User-Agent carries too.
struct Version: Command {
    /// Not a subcommand but the global `--version` flag, so the registry does not list it.
    static let spec = CommandSpec(
        name: "--version", facts: [.sendsNothing], summary: "Print tracker's version.", usage: ["tracker --version"],
        flags: [],
        examples: ["tracker --version"])

    init() {}

    init(_ scanned: ScannedArguments, today: CalendarDate) throws {}

    func run(_ runner: Runner) async throws { try runner.output.standardOutput(Self.line + "\n") }

    /// The version, said here only: the release script reads it, and refuses one CHANGELOG.md does not name.
    static let current = "1.0.0"

    /// `tracker 1.0.0 (commit 0123456789ab, Swift 6.3.1, Linux x86_64)`: what a bug report needs. A release names its
    /// commit (and `modified` when its tree had changes); a build from a checkout says so instead.
    static var line: String { "tracker \(current) (\(origin), Swift \(swift), \(platform))" }

    /// Where this binary came from: the commit the release script built, or a build from a checkout.
    static var origin: String {
        let commit = String(cString: tracker_build_commit())
        guard !commit.isEmpty else { return "built from a checkout" }
        return "commit \(commit.prefix(12))" + (tracker_build_tree_modified() != 0 ? ", modified" : "")
    }

    /// The compiler that built tracker.
    static var swift: String {
        #if swift(>=7.0)
            "7 or later"
        #elseif swift(>=6.4)
            "6.4"
        #elseif swift(>=6.3.2)
            "6.3.2"
        #elseif swift(>=6.3.1)
            "6.3.1"
        #elseif swift(>=6.3)
            "6.3"
        #elseif swift(>=6.2)
            "6.2"
        #elseif swift(>=6.1)
            "6.1"
        #else
            "6.0"
        #endif
    }

    static var platform: String {
        #if os(Linux)
            let system = "Linux"
        #elseif os(macOS)
            let system = "macOS"
        #else
            let system = "unknown system"
        #endif
        #if arch(x86_64)
            return system + " x86_64"
        #elseif arch(arm64)
            return system + " arm64"
        #else
            return system
        #endif
    }
}
