import Foundation

/// Thrown when standard output's reader has gone away (`tracker list | head -1`): tracker stops quietly.
public struct OutputClosed: Error {}

/// Where tracker's text goes: data to standard output, diagnostics to standard error; swapped out in tests.
public struct Output: Sendable {
    /// Writes data to standard output; throws `OutputClosed` on a closed pipe, `AppError.output` on other failures.
    public var standardOutput: @Sendable (String) throws -> Void
    /// Writes diagnostics to standard error; failures there are ignored, as there is nowhere left to report them.
    public var standardError: @Sendable (String) -> Void
    public var isStdoutTerminal: Bool
    public var isStderrTerminal: Bool
    /// The terminal's width in columns, when standard output is one.
    public var terminalWidth: Int?

    public init(
        standardOutput: @escaping @Sendable (String) throws -> Void,
        standardError: @escaping @Sendable (String) -> Void,
        isStdoutTerminal: Bool = false, isStderrTerminal: Bool = false, terminalWidth: Int? = nil
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.isStdoutTerminal = isStdoutTerminal
        self.isStderrTerminal = isStderrTerminal
        self.terminalWidth = terminalWidth
    }

    /// The process's real streams, written with write(2) so a closed pipe is an error to handle, not a crash.
    public static func standard(environment: [String: String]) -> Output {
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

enum FileDescriptorWriter {
    /// Writes all of `text`, retrying short writes and EINTR; returns 0 or the errno that stopped it.
    static func write(_ text: String, to descriptor: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
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
