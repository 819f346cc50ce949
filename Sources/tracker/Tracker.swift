#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

@main
enum Tracker {
    static func main() async {
        // A closed pipe must surface as EPIPE on write, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let code = await CLI.run(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        NetworkHelper.settle()
        exit(code.rawValue)
    }
}
