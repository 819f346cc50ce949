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
import TrackerNetwork
import TrackerSystem
import TrackerModel
import TrackerOperations

@main
enum Tracker {
    static func main() {
        // libcurl and the ~30 libraries behind it load on a thread of their own from the first moment, overlapping the
        // configuration and the cache, for every command that may send a request. (Earlier still, in a C constructor
        // before `main`, was measured slower: the Swift runtime's start waits on the loader's lock meanwhile.)
        if CLI.loadsTransportAtStart(Array(CommandLine.arguments.dropFirst())) { NetworkHelper.preloadTransport() }
        // A closed pipe must surface as EPIPE on write, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let code = CLI.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: POSIX.environment())
        NetworkHelper.settle()
        // _exit, not exit: exit's handlers (OpenSSL's and libcurl's clean-up of the libraries loaded) cost every run
        // 0.3 ms, and tracker has nothing for them to flush: all its output is written with write(2) as it goes.
        _exit(code.rawValue)
    }
}
