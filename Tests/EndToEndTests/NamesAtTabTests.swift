import FakeAirtable
import Foundation
import XCTest

/// Names at TAB (docs/contract.md "Names at TAB"): `list` and `show` keep a names file; each shell's completion offers
/// projects, categories, views, fields and profiles from it alone, quoted for that shell. Each shell is driven
/// through its own completion machinery: bash's `COMP_WORDS`, fish's `complete -C`, and zsh at a real prompt in
/// tmux. A shell that is not installed skips its test.
final class NamesAtTabTests: FakeAirtableTestCase {
    static let quotedName = #"Bob's "quoted" launch"#

    /// A customised base whose first project's name holds both quotes, listed once so the names file exists; `tracker`
    /// is first on PATH, as it is for a person.
    private func listedOnce() throws -> TrackerProcess {
        var records = FakeAirtable.customisedProjects
        var fields = records[0]["fields"] as? [String: Any] ?? [:]
        fields["Name"] = Self.quotedName
        records[0]["fields"] = fields
        try startFake(records: records, options: .customisedBase)
        var process = try configuredTracker(CustomisedBaseTests.mapping)
        try process.putOnPath()
        let listed = try process.run(["list", "--format", "tsv"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return process
    }

    private func names(_ kind: String, _ process: TrackerProcess, _ extra: [String] = []) throws -> [String] {
        let result = try process.run(["__complete", kind] + extra)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "")
        return result.lines
    }

    func testListKeepsTheNamesAndCompletingSendsNoRequest() throws {
        let process = try listedOnce()
        let requests = fake.log.count
        let projects = try names("projects", process)
        XCTAssertEqual(projects.count, 16)
        XCTAssertTrue(projects.contains(Self.quotedName))
        XCTAssertTrue(projects.contains("Coffee packaging"))
        XCTAssertEqual(try names("views", process), ["All projects", "Active", "High priority", "Done"])
        XCTAssertEqual(
            try names("categories", process),
            ["Brand identity", "Industrial design", "Healthcare design", "Technology design"], "the schema's order")
        let fields = try names("fields", process)
        XCTAssertTrue(fields.contains("Budget") && fields.contains("Owner email") && fields.contains("Days left"))
        XCTAssertFalse(fields.contains("Name") || fields.contains("Type") || fields.contains("Status"), "\(fields)")
        XCTAssertEqual(fake.log.count, requests, "TAB sends nothing")

        // The file is private, holds no token, and a project deleted elsewhere falls out at the next whole listing.
        let cache = process.runtimeDirectory + "/.cache/tracker"
        let file = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.hasPrefix("names-") })
        let attributes = try FileManager.default.attributesOfItem(atPath: cache + "/" + file)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let text = try String(contentsOfFile: cache + "/" + file, encoding: .utf8)
        XCTAssertFalse(text.contains(fake.options.token))
        XCTAssertEqual(try process.run(["delete", "Coffee packaging", "--yes"]).status, 0)
        XCTAssertTrue(try names("projects", process).contains("Coffee packaging"), "no list has run since")
        XCTAssertEqual(try process.run(["list", "--format", "tsv"]).status, 0)
        XCTAssertFalse(try names("projects", process).contains("Coffee packaging"))
    }

    func testAFilteredListAndShowAddNamesWithoutForgettingOthers() throws {
        try startFake()
        let process = tracker()
        XCTAssertEqual(try names("projects", process), [], "nothing read yet")
        XCTAssertEqual(try names("categories", process).first, "Brand identity", "the template's until then")
        XCTAssertEqual(try process.run(["show", "CubePad"]).status, 0)
        XCTAssertEqual(try names("projects", process), ["CubePad"])
        XCTAssertEqual(try process.run(["list", "--category", "Brand identity", "--format", "tsv"]).status, 0)
        let projects = try names("projects", process)
        XCTAssertEqual(projects.last, "CubePad", "what was listed comes first")
        XCTAssertEqual(projects.count, 7, "\(projects)")
    }

    func testProfilesAreOfferedFromTheSecretsFile() throws {
        let process = bareTracker()
        try #"{"profiles": {"work": {"baseId": "appWORKbase000001"}, "client x": {}}, "default": "work"}"#.write(
            toFile: process.runtimeDirectory + "/Secrets.json", atomically: false, encoding: .utf8)
        chmod(process.runtimeDirectory + "/Secrets.json", 0o600)
        XCTAssertEqual(try names("profiles", process), ["client x", "work"])
    }

    func testBashCompletesNamesQuotedSoTheShellReadsThemBack() throws {
        let process = try listedOnce()
        let script = try process.run(["completion", "bash"])
        let path = process.runtimeDirectory + "/tracker.bash"
        try script.stdout.write(toFile: path, atomically: false, encoding: .utf8)
        /// What `_tracker` offers for the words, and each offer as bash reads it back when the line runs.
        func complete(_ words: [String]) throws -> (offered: [String], read: [String]) {
            let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
            let (status, text) = try runProgram(
                "/bin/bash",
                [
                    "-c",
                    """
                    source '\(path)'; COMP_WORDS=(\(quoted.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
                    _tracker; status=$?
                    for offer in "${COMPREPLY[@]}"; do printf '%s\\n' "$offer"; done
                    printf -- '--\\n'
                    for offer in "${COMPREPLY[@]}"; do eval "set -- $offer"; printf '%s\\n' "$1"; done
                    exit $status
                    """,
                ], environment: process.environment, directory: process.runtimeDirectory)
            XCTAssertEqual(status, 0)
            let parts = text.components(separatedBy: "--\n")
            XCTAssertEqual(parts.count, 2, text)
            func lines(_ part: String) -> [String] { part.split(separator: "\n").map(String.init) }
            return (lines(parts[0]), lines(parts.count > 1 ? parts[1] : ""))
        }
        let coffee = try complete(["tracker", "show", "coff"])
        XCTAssertEqual(coffee.offered, [#"Coffee\ packaging"#])
        XCTAssertEqual(coffee.read, ["Coffee packaging"])
        let quoted = try complete(["tracker", "done", "bob"])
        XCTAssertEqual(quoted.read, [Self.quotedName], "\(quoted.offered)")
        XCTAssertEqual(try complete(["tracker", "update", #""Bob"#]).offered, [Self.quotedName], "inside quotes as is")
        XCTAssertEqual(try complete(["tracker", "list", "--view", "Hi"]).read, ["High priority"])
        XCTAssertEqual(try complete(["tracker", "add", "--category", "Ind"]).read, ["Industrial design"])
        XCTAssertEqual(try complete(["tracker", "add", "--set", "Bud"]).offered, ["Budget="])
        XCTAssertEqual(try complete(["tracker", "list", "--columns", "name,Pri"]).offered, ["name,Priority"])
        XCTAssertEqual(try complete(["tracker", "show", "zzz"]).offered, [])
    }

    func testFishCompletesNamesThroughItsOwnMachinery() throws {
        let fish = "/usr/bin/fish"
        guard FileManager.default.isExecutableFile(atPath: fish) else { throw XCTSkip("fish is not installed") }
        let process = try listedOnce()
        let path = process.runtimeDirectory + "/tracker.fish"
        try process.run(["completion", "fish"]).stdout.write(toFile: path, atomically: false, encoding: .utf8)
        func complete(_ line: String) throws -> [String] {
            var environment = process.environment
            environment["XDG_CONFIG_HOME"] = process.runtimeDirectory + "/config"
            environment["XDG_DATA_HOME"] = process.runtimeDirectory + "/data"
            let escaped = line.replacingOccurrences(of: "'", with: #"\'"#)
            let (status, text) = try runProgram(
                fish, ["--no-config", "-c", "source '\(path)'; complete -C '\(escaped)'"], environment: environment,
                directory: process.runtimeDirectory)
            XCTAssertEqual(status, 0)
            // Each line is a candidate, then a tab and its description if it has one.
            return text.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        XCTAssertEqual(try complete("tracker show Coff"), ["Coffee packaging"])
        XCTAssertEqual(try complete("tracker reopen Bob"), [Self.quotedName])
        XCTAssertEqual(try complete("tracker list --view High"), ["High priority"])
        XCTAssertEqual(try complete("tracker add --set Bud"), ["Budget="])
        XCTAssertEqual(try complete("tracker list --columns name,Pri"), ["name,Priority"])
    }

    func testZshCompletesNamesAtARealPrompt() throws {
        let tmux = "/usr/bin/tmux", zsh = "/usr/bin/zsh"
        guard FileManager.default.isExecutableFile(atPath: tmux), FileManager.default.isExecutableFile(atPath: zsh)
        else { throw XCTSkip("zsh or tmux is not installed") }
        let process = try listedOnce()
        let functions = process.runtimeDirectory + "/zsh"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        try process.run(["completion", "zsh"]).stdout.write(
            toFile: functions + "/_tracker", atomically: false, encoding: .utf8)
        let terminal = Terminal(tmux: tmux, process: process)
        try terminal.start(zsh + " -f")
        defer { terminal.stop() }
        try terminal.type("fpath=(\(functions) $fpath); autoload -Uz compinit; compinit -u -D; PS1='> '", "Enter")
        try terminal.type("tracker show coff", "Tab")
        try terminal.waitFor(#"> tracker show Coffee\ packaging"#)
        try terminal.type("C-u", "tracker done bob", "Tab")
        try terminal.waitFor(#"> tracker done Bob\'s\ \"quoted\"\ launch"#)
        // Run as a line, zsh reads the completed word back as the name itself.
        try terminal.type("C-a", "print -r -- ", "Enter")
        try terminal.waitFor("\ntracker done \(Self.quotedName)")
        try terminal.type("tracker list --view hi", "Tab")
        try terminal.waitFor(#"> tracker list --view High\ priority"#)
        try terminal.type("C-u", "tracker add --set Bud", "Tab")
        try terminal.waitFor("> tracker add --set Budget=")
    }
}

/// A shell at a real terminal in its own tmux server, typed into and read back.
private struct Terminal {
    let tmux: String
    let process: TrackerProcess
    var socket: String {
        "tracker-test-\(ProcessInfo.processInfo.processIdentifier)-\(process.runtimeDirectory.hashValue)"
    }

    /// tmux's first command starts its server, which keeps whatever stdout it was given: only reads capture.
    private func tmux(_ arguments: [String], reads: Bool = false) throws -> String {
        var environment = process.environment
        environment["TERM"] = "xterm"
        return try runProgram(
            tmux, ["-L", socket, "-f", "/dev/null"] + arguments, environment: environment, limit: 10,
            capturesOutput: reads
        ).stdout
    }

    /// Starts the server and its shell. Foundation's Process knows a program has ended when every copy of a socket
    /// it gave the program is closed; tmux's server would keep one forever, so the shell that starts it closes
    /// every descriptor above stderr first.
    func start(_ command: String) throws {
        var environment = process.environment
        environment["TERM"] = "xterm"
        let closing =
            #"for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done; exec "$@""#
        _ = try runProgram(
            "/bin/bash",
            [
                "-c", closing, "tmux", tmux, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y",
                "40",
            ]
                + ["-c", process.runtimeDirectory, command],
            environment: environment, limit: 10, capturesOutput: false)
    }

    /// Sends each of `keys` (tmux key names such as "Tab" and "C-u", or literal text).
    func type(_ keys: String...) throws {
        for key in keys {
            let isKeyName = key == "Tab" || key == "Enter" || key.hasPrefix("C-") && key.count == 3
            _ = try tmux(["send-keys", "-t", "0"] + (isKeyName ? [key] : ["-l", key]))
        }
    }

    /// Waits up to 10 s for `text` on the screen.
    func waitFor(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var screen = ""
        for _ in 0..<100 {
            screen = try tmux(["capture-pane", "-p", "-t", "0"], reads: true)
            if screen.contains(text) { return }
            usleep(100_000)
        }
        XCTFail("never saw \(text.debugDescription) on:\n\(screen)", file: file, line: line)
    }

    func stop() { _ = try? tmux(["kill-server"]) }
}
