import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// `tracker --version`: the version a bug report needs, which the User-Agent carries too.
struct Version: Command {
    /// Not a subcommand but the global `--version` flag, so the registry does not list it.
    static let spec = CommandSpec(
        name: "--version", summary: "Print tracker's version.", usage: ["tracker --version"], flags: [],
        examples: ["tracker --version"])

    init() {}

    init(_ scanned: ScannedArguments, today: CalendarDate) throws {}

    func run(_ runner: Runner) async throws { try runner.output.standardOutput(Self.line + "\n") }

    static let current = "0.2.0"

    /// `tracker 0.2.0 (Swift 6.3.1, Linux x86_64)`: what a bug report needs.
    static var line: String { "tracker \(current) (Swift \(swift), \(platform))" }

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
