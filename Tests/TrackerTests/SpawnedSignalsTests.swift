import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
@testable import TrackerSystem

/// A program tracker starts (the demo's shell, an editor, a token command) gets signals as a shell would give them.
struct SpawnedSignalsTests {
    #if os(Linux)
        /// The child's mask and ignored signals as /proc shows them, spawned from a thread that blocks Ctrl-C and the
        /// ending signals, as the threads tracker's tasks run on do, in a process that ignores SIGPIPE, as tracker does.
        private func childSignals() throws -> (blocked: UInt64, ignored: UInt64) {
            signal(SIGPIPE, SIG_IGN)
            var blocking = sigset_t()
            sigemptyset(&blocking)
            for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&blocking, number) }
            var before = sigset_t()
            pthread_sigmask(SIG_BLOCK, &blocking, &before)
            defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
            var pipeEnds: [Int32] = [0, 0]
            try #require(pipe(&pipeEnds) == 0)
            let spawned = POSIX.spawn(
                // grep itself, not through sh: dash clears the mask it was given, bash and the rest keep it.
                ["grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"], standardOutput: pipeEnds[1],
                closing: [pipeEnds[0]])
            close(pipeEnds[1])
            let text = String(decoding: POSIX.readAll(pipeEnds[0]), as: UTF8.self)
            close(pipeEnds[0])
            let pid = try spawned.get()
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            func field(_ name: String) throws -> UInt64 {
                let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + ":") })
                return try #require(UInt64(line.split(separator: "\t").last ?? "", radix: 16))
            }
            return (try field("SigBlk"), try field("SigIgn"))
        }

        /// The bit of `number` in a /proc signal mask.
        private func bit(_ number: Int32) -> UInt64 { 1 << UInt64(number - 1) }

        @Test func noSignalIsBlockedInAProgramTrackerStarts() throws {
            let (blocked, _) = try childSignals()
            #expect(blocked == 0, "blocked: \(String(blocked, radix: 16))")
        }

        @Test func sigpipeAndTheEndingSignalsAreAtTheirDefaultsInAProgramTrackerStarts() throws {
            let (_, ignored) = try childSignals()
            for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] {
                #expect(ignored & bit(number) == 0, "signal \(number) ignored: \(String(ignored, radix: 16))")
            }
        }

        /// The token and the team's Redis (its password in the address) never reach a program tracker starts, from
        /// this process's environment or one given; everything else does.
        @Test func theTokenAndTheRedisAddressAreNeverPassedOn() throws {
            var pipeEnds: [Int32] = [0, 0]
            try #require(pipe(&pipeEnds) == 0)
            let spawned = POSIX.spawn(
                ["env"], standardOutput: pipeEnds[1], closing: [pipeEnds[0]],
                environment: [
                    "AIRTABLE_TOKEN": "patSECRETSECRETSEC.0123", "TRACKER_REDIS_URL": "redis://:hunter2@cache:6379",
                    "HOME": "/home/someone", "PATH": "/usr/bin:/bin",
                ])
            close(pipeEnds[1])
            let text = String(decoding: POSIX.readAll(pipeEnds[0]), as: UTF8.self)
            close(pipeEnds[0])
            var status: Int32 = 0
            waitpid(try spawned.get(), &status, 0)
            #expect(text.contains("HOME=/home/someone"))
            #expect(!text.contains("AIRTABLE_TOKEN") && !text.contains("patSECRET"))
            #expect(!text.contains("TRACKER_REDIS_URL") && !text.contains("hunter2"))
        }
    #endif
}
