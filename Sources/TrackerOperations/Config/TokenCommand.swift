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

/// Runs the `tokenCommand` of the secrets file: a program that prints the token (a password manager, the system
/// keychain). No shell, stdin closed, the first line of stdout is the token, and a command that hangs (waiting for a
/// passphrase no one will type in cron) is given up on.
package enum TokenCommand {
    /// How long the command may take.
    package static let timeoutSeconds = 10.0

    /// The command as a person would type it, for messages.
    package static func display(_ argv: [String]) -> String {
        argv.map { word in
            word.isEmpty || word.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" })
                ? "'" + word.replacing("'", with: "'\\''") + "'" : word
        }.joined(separator: " ")
    }

    /// The token the command printed, or a configuration error naming the command, its status and its stderr's
    /// first line. The token itself is never part of an error.
    /// The same runs `redisPasswordCommand` (`setting`) for the Redis's password (`secret`, `instead`).
    package static func run(
        _ argv: [String], timeout: Double = timeoutSeconds, setting: String = "tokenCommand", secret: String = "token",
        instead: String = "set \"token\" instead"
    ) -> Result<String, AppError> {
        let shown = display(argv)
        func failure(_ what: String) -> Result<String, AppError> {
            .failure(
                .configuration(
                    "\(setting) \(shown) \(what)",
                    hint: "Run it yourself to check it prints the \(secret), or \(instead)."))
        }
        let outcome: Outcome
        do {
            outcome = try spawn(argv, timeout: timeout)
        } catch let error as SpawnFailure {
            return failure("could not be started: \(error.reason)")
        } catch {
            return failure("could not be started")
        }
        let firstErrorLine = firstLine(outcome.standardError).map { ": \($0)" } ?? ""
        if outcome.timedOut {
            let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
            return failure("gave no \(secret) within \(seconds) s and was stopped")
        }
        if let signal = outcome.signal { return failure("was killed by signal \(signal)\(firstErrorLine)") }
        if outcome.status != 0 { return failure("exited with status \(outcome.status)\(firstErrorLine)") }
        guard let token = firstLine(outcome.standardOutput) else { return failure("printed no \(secret)") }
        return .success(token)
    }

    /// The first non-empty line, trimmed; nil when there is none.
    private static func firstLine(_ data: [UInt8]) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map {
            $0.trimmingWhitespace()
        }
        return line?.isEmpty == false ? line : nil
    }

    private struct Outcome {
        package var status: Int32 = 0
        package var signal: Int32?
        package var timedOut = false
        package var standardOutput: [UInt8] = []
        package var standardError: [UInt8] = []
    }

    private struct SpawnFailure: Error { var reason: String }

    /// posix_spawnp with stdin from /dev/null and both outputs read through pipes until they close or time runs out.
    private static func spawn(_ argv: [String], timeout: Double) throws -> Outcome {
        var output: [Int32] = [0, 0]
        var errors: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw SpawnFailure(reason: String(cString: strerror(errno))) }
        guard pipe(&errors) == 0 else {
            close(output[0])
            close(output[1])
            throw SpawnFailure(reason: String(cString: strerror(errno)))
        }
        let spawned = POSIX.spawn(
            argv, standardOutput: output[1], standardError: errors[1],
            closing: [output[0], output[1], errors[0], errors[1]])
        close(output[1])
        close(errors[1])
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let failure):
            close(output[0])
            close(errors[0])
            throw SpawnFailure(reason: POSIX.describe(failure.code))
        }
        var outcome = Outcome()
        let deadline = MonotonicClock.now() + timeout
        var open = [output[0], errors[0]]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !open.isEmpty {
            let left = deadline - MonotonicClock.now()
            if left <= 0 {
                outcome.timedOut = true
                break
            }
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), Int32(min(left, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { break }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    // Only the first line matters: keep at most 64 KiB of either stream.
                    if entry.fd == output[0] {
                        if outcome.standardOutput.count < 65536 { outcome.standardOutput += buffer[0..<count] }
                    } else if outcome.standardError.count < 65536 {
                        outcome.standardError += buffer[0..<count]
                    }
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        close(output[0])
        close(errors[0])
        if outcome.timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // The wait status's layout (WIFEXITED and friends are macros Swift cannot import).
        if status & 0x7F == 0 {
            outcome.status = (status >> 8) & 0xFF
        } else if !outcome.timedOut {
            outcome.signal = status & 0x7F
        }
        return outcome
    }
}
