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
import TrackerSystem
import TrackerModel
import TrackerOperations

/// Thrown when standard output's reader has gone away (`tracker list | head -1`): tracker stops quietly.
struct OutputClosed: Error {}

/// Where tracker's text goes: data to standard output, diagnostics to standard error; swapped out in tests.
struct Output: Sendable {
    /// Writes data to standard output; throws `OutputClosed` on a closed pipe, `AppError.output` on other failures.
    var standardOutput: @Sendable (String) throws -> Void
    /// Writes to standard error exactly what it is given: only tracker's own terminal control (the status line)
    /// uses it directly; everything else goes through `standardError(_:)`.
    var rawStandardError: @Sendable (String) -> Void
    /// Secrets that must never be written, shared by every copy of this output.
    let secrets = Locked<[String]>([])
    var isStdoutTerminal: Bool
    var isStderrTerminal: Bool
    /// The terminal's width in columns, when standard output is one.
    var terminalWidth: Int?

    init(
        standardOutput: @escaping @Sendable (String) throws -> Void,
        standardError: @escaping @Sendable (String) -> Void,
        isStdoutTerminal: Bool = false, isStderrTerminal: Bool = false, terminalWidth: Int? = nil
    ) {
        self.standardOutput = standardOutput
        self.rawStandardError = standardError
        self.isStdoutTerminal = isStdoutTerminal
        self.isStderrTerminal = isStderrTerminal
        self.terminalWidth = terminalWidth
    }

    /// Writes diagnostics to standard error; failures there are ignored, as there is nowhere left to report them.
    ///
    /// This is the one door to stderr: whatever a message carries (a project's name, Airtable's own message, a field
    /// or view name) arrives with its control characters made visible, so no text from a base can move the cursor or
    /// retitle the terminal, and with any token masked.
    func standardError(_ text: String) {
        rawStandardError(StandardErrorText.safe(text, concealing: secrets.withLock { $0 }))
    }

    /// From now on `secret` is never written to stderr; it is shown masked.
    func conceal(_ secret: String) {
        guard secret.count >= 8 else { return }
        secrets.withLock { if !$0.contains(secret) { $0.append(secret) } }
    }

    /// The process's real streams, written with write(2) so a closed pipe is an error to handle, not a crash.
    static func standard(environment: [String: String]) -> Output {
        Output(
            standardOutput: { text in
                let code = FileDescriptorWriter.write(text, to: STDOUT_FILENO)
                if code == EPIPE { throw OutputClosed() }
                if code != 0 { throw AppError.output(String(cString: strerror(code))) }
            },
            standardError: { text in _ = FileDescriptorWriter.write(text, to: STDERR_FILENO) },
            isStdoutTerminal: isatty(STDOUT_FILENO) == 1,
            isStderrTerminal: isatty(STDERR_FILENO) == 1,
            terminalWidth: TerminalSize.columns(environment: environment))
    }
}

enum TerminalSize {
    /// The width of the terminal on standard output, else `COLUMNS`, else nil.
    static func columns(environment: [String: String]) -> Int? {
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
    }
}
