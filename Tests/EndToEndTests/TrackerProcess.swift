import FakeAirtable
import Foundation
import XCTest

/// What one run of the built `tracker` binary did.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    /// The HOME the run had (its cache lives under it).
    var environmentHome = ""

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs the built `tracker` binary against a fake, in a private directory that is its HOME, its working directory and
/// its runtime directory (so pacing slots and locks are per test); `FakeAirtableTestCase` removes it afterwards.
struct TrackerProcess {
    static var binary: URL {
        // SwiftPM puts the test bundle and the products side by side.
        Bundle.main.bundleURL.appendingPathComponent("tracker")
    }

    var environment: [String: String]
    let runtimeDirectory: String

    init(fake: FakeAirtable?, extra: [String: String] = [:]) {
        runtimeDirectory =
            FileManager.default.temporaryDirectory.appendingPathComponent("tracker-e2e-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true)
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": runtimeDirectory, "TRACKER_RUNTIME_DIR": runtimeDirectory + "/run",
        ]
        if let fake {
            environment["AIRTABLE_ENDPOINT_URL"] = fake.endpoint
            environment["AIRTABLE_TOKEN"] = fake.options.token
            environment["AIRTABLE_BASE_ID"] = fake.options.baseID
            environment["AIRTABLE_TABLE"] = fake.options.table
        }
        environment.merge(extra) { $1 }
        self.environment = environment
    }

    /// Runs `tracker arguments…` and waits for it, killing it after `limit` seconds.
    func run(_ arguments: [String], stdin: String? = nil, directory: String? = nil, limit: Double = 60) throws
        -> ProcessResult
    {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? runtimeDirectory)
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let started = Date()
        try process.run()
        let collected = Collected()
        let group = DispatchGroup()
        for (handle, isOut) in [(out.fileHandleForReading, true), (err.fileHandleForReading, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = handle.readDataToEndOfFile()
                collected.set(data, isOut: isOut)
                group.leave()
            }
        }
        // Written once the readers run, and on a thread of its own: a tracker that answers before reading all of its
        // input must not fill a pipe nobody empties.
        let writer = input.fileHandleForWriting
        let bytes = Data((stdin ?? "").utf8)
        DispatchQueue.global().async {
            if !bytes.isEmpty { try? writer.write(contentsOf: bytes) }
            try? writer.close()
        }
        if group.wait(timeout: .now() + limit) == .timedOut {
            process.terminate()
            XCTFail("tracker \(arguments.joined(separator: " ")) did not finish within \(limit)s")
            group.wait()
        }
        process.waitUntilExit()
        let result = ProcessResult(
            status: process.terminationStatus, stdout: collected.text(isOut: true),
            stderr: collected.text(isOut: false),
            seconds: Date().timeIntervalSince(started), environmentHome: environment["HOME"] ?? "")
        Self.assertNoToken(in: result, arguments: arguments, given: [environment["AIRTABLE_TOKEN"], stdin])
        return result
    }

    /// Every run, with or without a fake: no output holds the token it was given or anything shaped like one.
    static func assertNoToken(in result: ProcessResult, arguments: [String], given: [String?]) {
        let given = given.compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { $0.count >= 20 }
        for (stream, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            let shaped = text.range(of: #"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"#, options: .regularExpression) != nil
            if shaped || given.contains(where: { text.contains($0) }) {
                XCTFail("tracker \(arguments.joined(separator: " ")) printed a token on \(stream)")
            }
        }
    }

    /// Writes a secrets file in the working directory with these extra settings (a JSON object's members).
    func writeSecrets(for fake: FakeAirtable, _ members: String = "") throws {
        let extra = members.isEmpty ? "" : ", " + members
        let text =
            #"{"token": "\#(fake.options.token)", "baseId": "\#(fake.options.baseID)", "table": "\#(fake.options.table)"\#(extra)}"#
        try text.write(toFile: runtimeDirectory + "/Secrets.json", atomically: false, encoding: .utf8)
        chmod(runtimeDirectory + "/Secrets.json", 0o600)
    }

    /// Makes `tracker` the first program of that name on PATH, as it is for a person whose shell completes it.
    mutating func putOnPath() throws {
        let bin = runtimeDirectory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/tracker", withDestinationPath: Self.binary.path)
        environment["PATH"] = bin + ":/usr/bin:/bin"
    }

    /// Starts `tracker` without waiting, for tests that run several at once or signal it.
    func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: runtimeDirectory)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }
}

/// What bash's completion offers for `words` (the last one being completed), from the bash script `script`, driven
/// through `COMP_WORDS` as bash does at TAB, in `process`'s environment.
func bashCompletions(_ words: [String], script: String, _ process: TrackerProcess) throws -> [String] {
    let path = process.runtimeDirectory + "/tracker.bash"
    try script.write(toFile: path, atomically: false, encoding: .utf8)
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    let (status, text) = try runProgram(
        "/bin/bash",
        [
            "-c",
            "source '\(path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tracker; status=$?; "
                + "printf '%s\\n' \"${COMPREPLY[@]}\"; exit $status",
        ], environment: process.environment, directory: process.runtimeDirectory)
    XCTAssertEqual(status, 0)
    return text.split(separator: "\n").map(String.init)
}

/// Runs another program to the end (bash, man, script) and returns its status and standard output; it is killed
/// after `limit` seconds so that a hung shell fails the test instead of the run. A program that leaves a daemon
/// behind holding its stdout (tmux's server) is run with `capturesOutput: false`.
func runProgram(
    _ path: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
    limit: Double = 60, capturesOutput: Bool = true
) throws -> (status: Int32, stdout: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    process.standardOutput = capturesOutput ? out : FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
    defer { watchdog.cancel() }
    let text =
        capturesOutput ? String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
    process.waitUntilExit()
    if process.terminationReason == .uncaughtSignal {
        XCTFail("\(path) \(arguments.joined(separator: " ")) was stopped after \(limit) s")
    }
    return (process.terminationStatus, text)
}

private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()

    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        if isOut { out = data } else { err = data }
        lock.unlock()
    }

    func text(isOut: Bool) -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: isOut ? out : err, as: UTF8.self)
    }
}

extension FakeAirtable.Options {
    /// A fake whose rate-limit lockout lasts `seconds`, for tests that inject 429s carrying a `Retry-After` that
    /// short (Airtable locks a base for 30 s and sends no `Retry-After`; RecordedBehaviourTests waits that out).
    static func lockingOut(for seconds: Double) -> Self {
        var options = Self()
        options.lockoutSeconds = seconds
        return options
    }
}

/// A test case with a fresh fake per test.
class FakeAirtableTestCase: XCTestCase {
    var fake: FakeAirtable!
    private var directories: [String] = []

    func startFake(records: [[String: Any]] = FakeAirtable.recordedProjects, options: FakeAirtable.Options = .init())
        throws
    {
        fake = FakeAirtable(options: options, records: records)
        try fake.start()
    }

    /// The longest any end-to-end test may take. swift-corelibs-xctest does not enforce `executionTimeAllowance`, so a
    /// watchdog ends the run with the test's name instead of letting CI hang.
    static let timeLimit = 240.0
    private var watchdog: DispatchWorkItem?

    override func setUp() {
        super.setUp()
        let name = self.name
        let watchdog = DispatchWorkItem {
            FileHandle.standardError.write(
                Data("\(name) took longer than \(Self.timeLimit) s; stopping the run\n".utf8))
            exit(1)
        }
        self.watchdog = watchdog
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.timeLimit, execute: watchdog)
    }

    override func tearDown() {
        watchdog?.cancel()
        fake?.stop()
        for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
        super.tearDown()
    }

    /// A tracker pointed at this test's fake through the environment.
    /// Starts every (process, arguments) at once and waits for all: their results in order.
    func runTogether(_ runs: [(TrackerProcess, [String])]) throws -> [ProcessResult] {
        let started = try runs.map { try $0.0.start($0.1) }
        return started.map { process, out, err in
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: stderr, seconds: 0)
        }
    }

    func tracker(_ extra: [String: String] = [:]) -> TrackerProcess { track(TrackerProcess(fake: fake, extra: extra)) }

    /// A tracker with no Airtable settings in its environment.
    func bareTracker(_ extra: [String: String] = [:]) -> TrackerProcess {
        track(TrackerProcess(fake: nil, extra: extra))
    }

    /// A tracker whose secrets file (not the environment) points at the fake, with extra settings.
    func configuredTracker(_ members: String = "", extra: [String: String] = [:]) throws -> TrackerProcess {
        var environment = ["AIRTABLE_ENDPOINT_URL": fake.endpoint]
        environment.merge(extra) { $1 }
        let process = bareTracker(environment)
        try process.writeSecrets(for: fake, members)
        return process
    }

    private func track(_ process: TrackerProcess) -> TrackerProcess {
        directories.append(process.runtimeDirectory)
        return process
    }

    /// Runs tracker on a pseudo-terminal (util-linux `script`), returning its status and what the terminal showed.
    func onATerminal(_ arguments: [String], _ process: TrackerProcess, columns: Int? = nil) throws -> (Int32, String) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("script is not installed")
        }
        let command = ([TrackerProcess.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        var environment = process.environment
        environment["TERM"] = "xterm"
        if let columns { environment["COLUMNS"] = String(columns) }
        return try runProgram(
            "/usr/bin/script", ["-qefc", command, "/dev/null"], environment: environment,
            directory: process.runtimeDirectory)
    }

    /// Asserts a failure: the exit status, a `tracker: ` first line containing `fragment`, nothing on stdout, no token.
    func assertFailure(
        _ result: ProcessResult, status: Int32, _ fragment: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("tracker: "), result.stderr, file: file, line: line)
        XCTAssertTrue(
            fragment.isEmpty || result.stderr.split(separator: "\n").first?.contains(fragment) == true, result.stderr,
            file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        if let token = fake?.options.token { XCTAssertFalse(result.stderr.contains(token), file: file, line: line) }
        XCTAssertFalse(result.stderr.contains("NSURLErrorDomain"), file: file, line: line)
        XCTAssertFalse(result.stderr.contains("Fatal error"), file: file, line: line)
    }
}
