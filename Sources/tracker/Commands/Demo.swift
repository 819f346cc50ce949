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
import Dispatch
import FakeAirtable
import TrackerModel
import TrackerOperations
import TrackerSystem

/// `tracker demo`: a Project tracker base served on this machine, and a shell (or one command) pointed at it.
struct Demo: Command {
    static let spec = CommandSpec(
        name: "demo", facts: [.sendsNothing], summary: "Try tracker on a demo base on this machine; no account needed.",
        usage: ["tracker demo [-- COMMAND [ARGS]...]"], positional: "-- COMMAND",
        flags: [],
        examples: ["tracker demo", "tracker demo -- list --overdue", "tracker demo -- show \"Coffee packaging\""],
        notes: [
            "It serves the template's 16 projects (their dates moved near today), clients, collaborators, comments",
            "and views on 127.0.0.1, answering as Airtable does, and starts $SHELL with tracker pointed at it until",
            "that shell exits; writes work too. With -- it runs one tracker command instead. It exits with the",
            "command's status (the shell's, when that is one of tracker's codes; else 1). Your own secrets file,",
            "cache and state are never read or written.",
        ])

    /// The tracker command to run against the demo base; empty for a shell.
    var command: [String] = []

    func run(_ runner: Runner) async throws { try runner.demo(self) }
}

extension Demo {
    init(_ scanned: ScannedArguments, today: CalendarDate) throws {
        self.init(command: scanned.positionals)
    }
}

extension Runner {
    /// Serves the demo base, runs the shell or the command with an environment of its own, and takes it all away.
    fileprivate func demo(_ options: Demo) throws {
        guard let directory = Self.privateDirectory(in: context.temporaryDirectory) else {
            throw AppError.file("cannot create a directory for the demo: \(POSIX.describe(errno))")
        }
        defer { _ = POSIX.runQuietly(["rm", "-rf", directory]) }
        let (demoOptions, records) = FakeAirtable.demo(today: today.description)
        var fakeOptions = demoOptions
        // The demo's Airtable answers Airtable's OAuth too, so `demo -- serve` signs people in in a browser.
        fakeOptions.oauth = FakeOAuthIntegration()
        let fake = FakeAirtable(options: fakeOptions, records: records)
        fake.addDemoFiles()
        do {
            _ = try fake.start()
        } catch {
            let reason = (error as? POSIXError).map { POSIX.describe($0.code.rawValue) } ?? "\(error)"
            throw AppError.network("cannot serve the demo base on 127.0.0.1: \(reason)")
        }
        defer { fake.stop() }
        let secrets = directory + "/secrets.json"
        let settings: JSONValue = .object([
            ("token", .string(fakeOptions.token)), ("baseId", .string(fakeOptions.baseID)),
            ("table", .string(fakeOptions.table)), ("endpoint", .string(fake.endpoint)),
            (
                "serve",
                .object([
                    (
                        "airtableOAuth",
                        .object([
                            ("clientId", .string(fakeOptions.oauth?.clientID ?? "")),
                            ("clientSecret", .string(or: fakeOptions.oauth?.clientSecret)),
                            ("url", .string(fake.endpoint)),
                        ])
                    )
                ])
            ),
        ])
        guard ReplacedFile.replace(secrets, with: Array(settings.serialized().utf8), mode: 0o600, durable: false) == 0
        else { throw AppError.file("cannot write the demo's secrets file in \(directory): \(POSIX.describe(errno))") }
        let environment = demoEnvironment(directory: directory, secrets: secrets)
        let program: [String]
        if options.command.isEmpty {
            let shell = context.environment["SHELL"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/bin/sh"
            output.standardError(
                "tracker: this is a demo: \(records.count) projects served on \(fake.endpoint) until this shell exits;"
                    + " your own secrets, cache and state are not used. Try: tracker list; tracker board; a write (tracker"
                    + " done NAME), then tracker history and tracker undo\n")
            program = [shell]
        } else {
            output.standardError("tracker: this is a demo base, served on \(fake.endpoint) for this command\n")
            program = [POSIX.executablePath() ?? "tracker"] + options.command
        }
        let status = context.interruption.whileAnotherProgramRuns { () -> Int32? in
            let spawned = POSIX.spawn(
                program, standardInput: STDIN_FILENO, standardOutput: STDOUT_FILENO, standardError: STDERR_FILENO,
                environment: environment)
            guard case .success(let pid) = spawned else { return nil }
            // An assistant's app ends `tracker demo -- mcp` with SIGTERM: the command gets it and ends as it would,
            // and the demo base and its secrets file are taken away after it.
            let forwarding = [SIGTERM, SIGHUP].map { number -> any DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { kill(pid, number) }
                source.resume()
                return source
            }
            defer { for source in forwarding { source.cancel() } }
            return POSIX.shellStatus(of: pid, followingStops: true)
        }
        guard let status else { throw AppError.exited(.failure) }
        if status != 0 { throw AppError.exited(ExitCode(rawValue: status) ?? .failure) }
    }

    /// The user's environment with tracker pointed at the demo: its secrets file, a cache, state and runtime directory
    /// of its own, none of the settings that would override the file (nor a team's Redis), and this tracker first on
    /// PATH.
    private func demoEnvironment(directory: String, secrets: String) -> [String: String] {
        var environment = context.environment
        // A team's Redis is for its real base: the demo's budget and locks stay on this machine.
        for name in environment.keys
        where name.hasPrefix("AIRTABLE_") || name.hasPrefix("TRACKER_REDIS_") || name == "TRACKER_PROFILE" {
            environment[name] = nil
        }
        environment["TRACKER_SECRETS"] = secrets
        environment["XDG_CACHE_HOME"] = directory + "/cache"
        environment["XDG_STATE_HOME"] = directory + "/state"
        environment["TRACKER_RUNTIME_DIR"] = directory + "/run"
        environment["TRACKER_DEMO"] = "1"
        if let program = POSIX.executablePath() {
            environment["PATH"] = Path.directory(of: program) + (environment["PATH"].map { ":" + $0 } ?? "")
        }
        return environment
    }

    /// A new directory only this user can enter (mkdtemp), under `parent`.
    private static func privateDirectory(in parent: String) -> String? {
        var template = Array((parent + "/tracker-demo-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
    }
}
