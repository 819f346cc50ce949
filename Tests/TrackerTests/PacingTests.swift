import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct PaceScheduleTests {
    @Test func fiveGoTogetherAndTheSixthWaitsForTheWindow() {
        var schedule = PaceSchedule()
        let waits = (0..<7).map { _ in schedule.reserve(at: 100, requestsPerSecond: 5) }
        #expect(waits.prefix(5).allSatisfy { $0 == 0 }, "requests that do not depend on each other go together")
        #expect(abs(waits[5] - PaceSchedule.givenMargin) < 1e-9)
        #expect(abs(waits[6] - PaceSchedule.givenMargin) < 1e-9)
        #expect(schedule.reserve(at: 200, requestsPerSecond: 5) == 0, "an idle schedule does not make anyone wait")
        // Whatever the arrivals, no window of a second ever holds more than five.
        var busy = PaceSchedule()
        var slots: [Double] = []
        for step in 0..<200 {
            slots.append(busy.reserve(at: Double(step) * 0.07, requestsPerSecond: 5) + Double(step) * 0.07)
        }
        for slot in slots { #expect(slots.filter { $0 >= slot && $0 < slot + 1 }.count <= 5) }
        // A pace above ten a second keeps ten to a window and shortens it.
        #expect(PaceSchedule.window(for: 10_000).capacity == 10)
        #expect(
            PaceSchedule.window(for: 0.5).capacity == 1
                && abs(PaceSchedule.window(for: 0.5).seconds - 2 * PaceSchedule.givenMargin) < 1e-9)
    }

    /// Airtable counts a request where it arrives. Requests that open a connection (arriving up to `coldSpread` after
    /// they leave) and requests on open ones (arriving within the margin), mixed at random, never put six arrivals in
    /// any second, whatever each one's lag within its bounds: the latest and the earliest are both tried.
    @Test func noSecondEverHoldsSixArrivalsOfColdAndWarmRequests() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            var schedule = PaceSchedule()
            var requests: [(leaves: Double, spread: Double)] = []
            var now = 100.0
            for _ in 0..<60 {
                now += Double.random(in: 0..<0.15, using: &random)
                let spread = Bool.random(using: &random) ? PaceSchedule.coldSpread : 0
                let leaves = now + schedule.reserve(at: now, requestsPerSecond: 5, spread: spread)
                requests.append((leaves, spread))
            }
            // Each request arrives at a random point of its bounds: the open connection's jitter (60 ms) or the cold
            // one's whole spread.
            for _ in 0..<50 {
                let arrivals = requests.map { $0.leaves + Double.random(in: 0...max(0.06, $0.spread), using: &random) }
                    .sorted()
                for (index, arrival) in arrivals.enumerated() where index + 5 < arrivals.count {
                    #expect(arrivals[index + 5] - arrival >= 1, "six arrivals within a second")
                }
            }
        }
        // A cold request is counted in every window it may arrive in: one leaving just before a full window would
        // arrive in it, so it waits.
        var schedule = PaceSchedule()
        for _ in 0..<5 { _ = schedule.reserve(at: 101.2, requestsPerSecond: 5) }
        #expect(schedule.reserve(at: 100, requestsPerSecond: 5) == 0, "a warm request before them fits")
        var cold = PaceSchedule()
        for _ in 0..<5 { _ = cold.reserve(at: 101.2, requestsPerSecond: 5) }
        #expect(cold.reserve(at: 100, requestsPerSecond: 5, spread: 0.3) > 1, "a cold one would arrive among them")
        // The stored schedule keeps each slot's spread.
        #expect(PaceSchedule(text: cold.text, now: 100) == cold)
    }

    @Test func after429NothingGoesThenThePaceIsSlowerAndRecoversGradually() {
        var schedule = PaceSchedule()
        schedule.rateLimited(at: 100, holdingFor: 31)
        #expect(abs(schedule.reserve(at: 100, requestsPerSecond: 5) - 31) < 1e-9, "held until the lockout is over")
        #expect(schedule.factor(at: 131) == 2.5)
        #expect(schedule.factor(at: 131 + 30) == 2.5, "slow for the calm period")
        #expect(abs(schedule.factor(at: 131 + 30 + 45) - 1.75) < 1e-9, "halfway back")
        #expect(schedule.factor(at: 131 + 30 + 90) == 1)
        // While slow, requests go one at a time 2.5 times further apart (0.545 s): no burst, two a second at most.
        var slow = PaceSchedule()
        slow.rateLimited(at: 0, holdingFor: 30)
        let slots = (0..<20).map { _ in slow.reserve(at: 30, requestsPerSecond: 5) + 30 }
        for (earlier, later) in zip(slots, slots.dropFirst()) {
            #expect(abs(later - earlier - 0.5 * PaceSchedule.givenMargin) < 1e-9)
        }
        // Once recovered, they go together again.
        #expect(slow.reserve(at: 300, requestsPerSecond: 5) == 0 && slow.reserve(at: 300, requestsPerSecond: 5) == 0)
    }

    /// What the board's bottom line and doctor say after a 429: held, then slowed, then nothing once full again.
    @Test func theCurrentPaceSaysTheHoldAndTheSlowdownUntilFullAgain() {
        var schedule = PaceSchedule()
        schedule.rateLimited(at: 100, holdingFor: 30)
        let held = CurrentPace(schedule, at: 110, configured: 5)
        #expect(held.isSlowed && held.heldFor == 20)
        #expect(held.words == "held 20 s, then slowed to 2 requests a second after a 429 (5 set), full again in 3 min")
        let slowed = CurrentPace(schedule, at: 175, configured: 5)
        #expect(slowed.isSlowed && slowed.heldFor == 0)
        #expect(slowed.words == "slowed to 2.2 requests a second after a 429 (5 set), full again in 2 min")
        let recovering = CurrentPace(schedule, at: 200, configured: 5)
        #expect(recovering.words == "slowed to 2.7 requests a second after a 429 (5 set), full again in 50 s")
        #expect(!CurrentPace(schedule, at: 250, configured: 5).isSlowed, "full again")
        #expect(!CurrentPace(PaceSchedule(), at: 0, configured: 5).isSlowed)
    }

    @Test func oneLockoutReportedTwiceSlowsOnceAndALaterOneSlowsMore() {
        var schedule = PaceSchedule()
        schedule.rateLimited(at: 100, holdingFor: 31)
        schedule.rateLimited(at: 100.2, holdingFor: 30.9)
        #expect(schedule.slowdown == 2.5)
        schedule.rateLimited(at: 135, holdingFor: 62)
        #expect(schedule.slowdown == 5)
        for _ in 0..<5 { schedule.rateLimited(at: schedule.hold + 10, holdingFor: 60) }
        #expect(schedule.slowdown == 10, "ten times slower at most")
    }

    @Test func theStoredScheduleRoundTripsAndAStaleOneIsForgotten() {
        var schedule = PaceSchedule()
        schedule.rateLimited(at: 100, holdingFor: 31)
        #expect(PaceSchedule(text: schedule.text, now: 101) == schedule)
        var old = PaceSchedule()
        old.rateLimited(at: 90_000, holdingFor: 31)
        #expect(PaceSchedule(text: old.text, now: 10) == PaceSchedule(), "from before a reboot")
        #expect(PaceSchedule(text: "garbage", now: 10) == PaceSchedule())
    }

    @Test func processesSharingASlotFileQueueBehindEachOther() throws {
        let (a, b, _, directory) = twoProcessesSharingASlotFile()
        defer { withExtendedLifetime(directory) {} }
        let waits = (0..<7).map { [a, b][$0 % 2].nextTurn() }
        #expect(waits.map { String(format: "%.2f", $0) } == ["0.00", "0.00", "0.00", "0.00", "0.00", "1.09", "1.09"])
        b.rateLimited(holdingFor: 30)
        #expect(abs(a.nextTurn() - 30) < 1e-9, "a 429 seen by one process holds back the other")
    }
}

@Suite(.timeLimit(.minutes(2)))
struct TokenBudgetTests {
    @Test func manyBasesUnderOneTokenStayUnderFiftyASecondTogether() throws {
        let directory = TemporaryDirectory()
        let runtime = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": directory.path + "/run"])
        let clock = TestClock()
        let token = FileRequestPacer(
            directory: runtime, name: "pace-token-test", requestsPerSecond: FileRequestPacer.tokenRequestsPerSecond,
            now: { clock.now })
        // Twelve bases, each well within its own 5 a second, all through one token.
        let pacers = (0..<12).map { base in
            TwoBudgetPacer(
                base: FileRequestPacer(
                    directory: runtime, name: "pace-base-\(base)", requestsPerSecond: 5, now: { clock.now }),
                token: token)
        }
        let slots = try (0..<120).map { try pacers[$0 % 12].nextTurn() + clock.now }
        for slot in slots { #expect(slots.filter { $0 >= slot && $0 < slot + 1 }.count <= 50) }
        #expect(slots.filter { $0 == clock.now }.count == 10, "ten go at once, as the token's window allows")
        // A 429 holds back its base, not the token's other bases.
        pacers[0].rateLimited(holdingFor: 30)
        #expect(try pacers[0].nextTurn() >= 30)
        #expect(try pacers[1].nextTurn() < 30)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct RuntimeDirectoryTests {
    @Test func itIsTheSamePathInCronAndInALoginShell() {
        let login = ["XDG_RUNTIME_DIR": "/run/user/1000", "TMPDIR": "/var/tmp", "HOME": "/home/me"]
        let cron = ["HOME": "/home/me", "PATH": "/usr/bin:/bin"]
        #expect(RuntimeDirectory.location(environment: login) == "/tmp/tracker-\(getuid())")
        #expect(RuntimeDirectory.location(environment: cron) == RuntimeDirectory.location(environment: login))
        #expect(RuntimeDirectory.location(environment: ["TRACKER_RUNTIME_DIR": "/x/y"]) == "/x/y")
    }

    @Test func itIsCreatedPrivateAndMadePrivateIfItWasNot() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/run"
        let made = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": path])
        #expect(made.path == path && made.problem == nil)
        #expect(try mode(path) == 0o700)
        chmod(path, 0o777)
        #expect(RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": path]).path == path)
        #expect(try mode(path) == 0o700)
    }

    @Test func aSymlinkOrAFileIsRefusedWithAWarning() throws {
        let directory = TemporaryDirectory()
        let file = directory.path + "/file"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let link = directory.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.path)
        for path in [file, link] {
            let refused = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": path])
            #expect(refused.path == nil)
            #expect(
                refused.warning == "warning: \(path) is not a directory; pacing and locks now cover this process only")
        }
    }

    @Test(.enabled(if: getuid() == 0, "changing a directory's owner needs root"))
    func anotherUsersDirectoryIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/run"
        mkdir(path, 0o700)
        chown(path, 4242, 4242)
        let refused = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": path])
        #expect(refused.path == nil)
        #expect(refused.problem == "\(path) belongs to another user")
    }

    private func mode(_ path: String) throws -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
        return info.st_mode & 0o777
    }
}

@Suite(.timeLimit(.minutes(2)))
struct FileLockTests {
    @Test func aSecondHolderWaitsAtMostTheBudget() async throws {
        let directory = TemporaryDirectory()
        let runtime = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": directory.path + "/run"])
        let clock = TestClock()
        let first = try await FileLock.acquire(
            "add-x", in: runtime, waitingAtMost: 5, doing: "adding \"X\"", now: { clock.now },
            sleep: { clock.sleep($0) }
        ).get()
        #expect(first != nil)
        let second = await FileLock.acquire(
            "add-x", in: runtime, waitingAtMost: 5, doing: "adding \"X\"", now: { clock.now },
            sleep: { clock.sleep($0) })
        #expect(second.failure == .lockTimeout(what: "adding \"X\"", waitedSeconds: 5))
        #expect(second.failure?.exitCode == .temporaryFailure)
        withExtendedLifetime(first) {}
        let other = try await FileLock.acquire(
            "add-y", in: runtime, waitingAtMost: 5, doing: "adding \"Y\"", now: { clock.now },
            sleep: { clock.sleep($0) }
        ).get()
        #expect(other != nil, "another name is another lock")
    }

    @Test func withoutADirectoryThereIsNoLockAndNoWait() async throws {
        let lock = try await FileLock.acquire("add-x", in: .none, waitingAtMost: 5, doing: "adding").get()
        #expect(lock == nil)
    }
}

/// Two processes' pacers at 5 a second sharing one slot file in a runtime directory of the test's, on a test clock
/// (the directory lasts as long as the value returned with them).
func twoProcessesSharingASlotFile() -> (FileRequestPacer, FileRequestPacer, TestClock, TemporaryDirectory) {
    let directory = TemporaryDirectory()
    let runtime = RuntimeDirectory.prepare(environment: ["TRACKER_RUNTIME_DIR": directory.path + "/run"])
    let clock = TestClock()
    func pacer() -> FileRequestPacer {
        FileRequestPacer(directory: runtime, name: "pace-test", requestsPerSecond: 5, now: { clock.now })
    }
    return (pacer(), pacer(), clock, directory)
}

/// A directory under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tracker-test-\(UUID().uuidString)").path
        // A failure here shows as the first file a test cannot write.
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
