import Foundation
import XCTest

/// `tracker board` on a real terminal: a tmux pane of its own (a private server per session), keys sent as a person
/// types them, the screen read back as the person sees it, and every byte the program wrote kept (`pipe-pane`).
final class BoardSession {
    let socket = "tracker-board-\(UUID().uuidString.prefix(8))"
    let bytesPath: String
    let statusPath: String
    private let tracker: TrackerProcess

    static var tmux: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `tracker arguments…` in a `width`×`height` pane; with `jobControl`, typed at an interactive bash, as a
    /// person's shell starts it, so that Ctrl-Z stops the job and `fg` continues it.
    init(
        _ tracker: TrackerProcess, _ arguments: [String] = ["board"], width: Int = 80, height: Int = 24,
        locale: String = "C.UTF-8", extra: [String: String] = [:], jobControl: Bool = false,
        standardErrorTo: String? = nil
    ) throws {
        guard let tmux = Self.tmux else { throw XCTSkip("tmux is not installed (apt-get install tmux)") }
        self.tracker = tracker
        bytesPath = tracker.runtimeDirectory + "/\(socket).bytes"
        statusPath = tracker.runtimeDirectory + "/\(socket).status"
        var environment = tracker.environment
        environment["LANG"] = locale
        environment["TERM"] = "xterm-256color"
        environment.merge(extra) { $1 }
        let exports = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let command =
            ([TrackerProcess.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            + (standardErrorTo.map { " 2> '\($0)'" } ?? "")
        // The pane stays after tracker ends, so what it left on the terminal can be read.
        // It starts once every byte it writes is being kept (`go`, made after pipe-pane).
        let go = tracker.runtimeDirectory + "/\(socket).go"
        let start = "while [ ! -e '\(go)' ]; do sleep 0.02; done; cd '\(tracker.runtimeDirectory)'"
        let script =
            jobControl
            ? "\(start) && exec env -i \(exports) PS1='$ ' bash --norc --noprofile -i"
            : "\(start) && env -i \(exports) \(command); echo $? > '\(statusPath)'; sleep 600"
        // Foundation's Process knows a program has ended when every copy of a descriptor it gave it is closed; tmux's
        // server would keep one forever, so the shell that starts it closes every descriptor above stderr first.
        let closing =
            #"for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done; exec "$@""#
        _ = try runProgram(
            "/bin/bash",
            [
                "-c", closing, "tmux", tmux, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)",
                "-y", "\(height)", script,
            ], limit: 10, capturesOutput: false)
        _ = try runProgram(
            tmux, ["-L", socket, "pipe-pane", "-o", "cat >> '\(bytesPath)'"], limit: 10, capturesOutput: false)
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        if jobControl {
            wait(for: "$ ")
            press(command, literal: true)
            press("Enter")
        }
    }

    private func tmux(_ arguments: [String]) -> String {
        (try? runProgram(Self.tmux!, ["-L", socket] + arguments, limit: 10))?.stdout ?? ""
    }

    /// Types keys as tmux names them (`Enter`, `Escape`, `C-c`, `Space`) or literal text with `literal`.
    func press(_ keys: String..., literal: Bool = false) {
        tmux(["send-keys", "-t", "0"] + (literal ? ["-l"] : []) + keys).isEmpty ? () : ()
    }

    /// The screen as a person sees it now.
    var screen: String {
        var text = tmux(["capture-pane", "-p", "-t", "0"])
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// The columns `line` takes on a terminal: East Asian wide characters and emoji two, the rest one.
    static func columns(_ line: Substring) -> Int {
        line.unicodeScalars.reduce(0) { total, scalar in
            let value = scalar.value
            let wide =
                (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
                || (0xFF00...0xFF60).contains(value) || (0x1F300...0x1FAFF).contains(value)
            return total + (wide ? 2 : 1)
        }
    }

    /// Waits until the screen holds `text`; the screen at the end either way.
    @discardableResult
    func wait(for text: String, timeout: Double = 15) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var shown = screen
        while !shown.contains(text) && Date() < deadline {
            usleep(50_000)
            shown = screen
        }
        return shown
    }

    /// With `jobControl`, has the shell note the status of the job that last ended (a stopped job's 148 is not it).
    func noteStatus() {
        press("echo $? > '\(statusPath)'", literal: true)
        press("Enter")
    }

    /// tracker's exit status once it has ended, waiting at most `timeout` seconds.
    func status(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: statusPath, encoding: .utf8),
                let code = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return code
            }
            usleep(50_000)
        }
        return nil
    }

    /// Every byte tracker wrote to the terminal.
    var bytes: String { (try? String(contentsOfFile: bytesPath, encoding: .utf8)) ?? "" }

    /// The pid of the tracker running in the pane.
    var trackerPID: Int32? {
        let pane = tmux(["list-panes", "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let shell = Int32(pane) else { return nil }
        let children = (try? runProgram("/usr/bin/pgrep", ["-P", "\(shell)"]).stdout) ?? ""
        return children.split(separator: "\n").compactMap { Int32($0) }.first
    }

    func close() { _ = try? runProgram(Self.tmux!, ["-L", socket, "kill-server"], limit: 10, capturesOutput: false) }

    deinit { close() }
}
