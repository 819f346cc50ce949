/// The process exit statuses of docs/contract.md; scripts depend on them, so only add, never renumber.
public enum ExitCode: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 64
    case dataRejected = 65
    case notFound = 66
    case unavailable = 69
    case temporaryFailure = 75
    case permissionDenied = 77
    case configuration = 78
    case interrupted = 130
    /// Ended by SIGHUP (128 + 1), its clean-ups run first.
    case hungUp = 129
    /// Ended by SIGTERM (128 + 15), its clean-ups run first: what a command run under `demo` ended with, passed on.
    case terminated = 143
}
