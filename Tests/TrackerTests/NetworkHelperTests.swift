import FakeAirtable
import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@_spi(Sending) @testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct NetworkHelperTests {
    func send(
        _ answers: [StubAnswer], method: String = "GET", kind: RequestKind = .idempotent, budget: Double = 120,
        clock: TestClock = TestClock(), notices: Recorder? = nil
    ) async -> (Result<Data, AppError>, StubTransport.Host) {
        let host = StubTransport.host(answers)
        let helper = Fixture.network(clock: clock, budget: budget, notices: notices)
        var request = HTTPRequest(url: URL(string: "https://\(host.name)/v0/app/table")!)
        request.method = method
        return (await helper.send(request, kind: kind), host)
    }

    @Test func returnsTheBodyOfA2xx() async throws {
        let (result, host) = await send([.http(200, body: #"{"ok":true}"#)])
        #expect(String(decoding: try result.get(), as: UTF8.self) == #"{"ok":true}"#)
        #expect(host.requests.count == 1)
    }

    @Test(arguments: [
        (
            401, #"{"error":{"type":"AUTHENTICATION_REQUIRED","message":"Authentication required"}}"#,
            ExitCode.permissionDenied,
            "Airtable did not accept the token (HTTP 401 AUTHENTICATION_REQUIRED: Authentication required)"
        ),
        (
            403, #"{"error":{"type":"INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND","message":"Invalid permissions"}}"#,
            .permissionDenied,
            "Airtable denied access (HTTP 403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND: Invalid permissions)"
        ),
        (404, #"{"error":"NOT_FOUND"}"#, .notFound, "Airtable could not find it (HTTP 404 NOT_FOUND)"),
        (
            422,
            #"{"error":{"type":"INVALID_VALUE_FOR_COLUMN","message":"Field \"Due date\" cannot accept the provided value"}}"#,
            .dataRejected,
            "Airtable rejected the request (HTTP 422 INVALID_VALUE_FOR_COLUMN: Field \"Due date\" cannot accept the provided value)"
        ),
        (413, "", .failure, "Airtable refused the request as too large (413 Payload Too Large)"),
        (
            414, "<html><head><title>414 Request-URI Too Large</title></head></html>", .failure,
            "Airtable refused the request because its URL is too long (414 URI Too Long)"
        ),
        (404, #"{"error":{"type":"NOT_FOUND"}}"#, .notFound, "Airtable could not find it (HTTP 404 NOT_FOUND)"),
        (
            403,
            #"{"error":{"type":"INVALID_PERMISSIONS","message":"You are not permitted to perform this operation"}}"#,
            .permissionDenied,
            "Airtable denied access (HTTP 403 INVALID_PERMISSIONS: You are not permitted to perform this operation)"
        ),
    ])
    func mapsErrorStatusesWithAirtablesTypeAndMessage(status: Int, body: String, code: ExitCode, message: String)
        async throws
    {
        let (result, host) = await send([.http(status, body: body)])
        let error = try #require(result.failure)
        #expect(error.exitCode == code)
        #expect(error.message == message)
        #expect(host.requests.count == 1)
    }

    @Test func retriesServerErrorsOnReadsWithGrowingJitteredBackoff() async throws {
        let clock = TestClock()
        let notices = Recorder()
        let (result, host) = await send(
            [.http(500, body: ""), .http(502, body: ""), .http(503, body: ""), .http(200, body: "{}")], clock: clock,
            notices: notices)
        #expect(try result.get() == Data("{}".utf8))
        #expect(host.requests.count == 4)
        #expect(clock.sleeps == [0.375, 0.75, 1.5])
        #expect(notices.text == "Airtable is failing (500 Internal Server Error); retrying…")
    }

    @Test func givesUpOnAServiceThatKeepsFailingWith69() async throws {
        let clock = TestClock()
        let (result, host) = await send([], clock: clock)
        let error = try #require(result.failure)
        #expect(error.exitCode == .unavailable)
        #expect(host.requests.count == 6)
        #expect(clock.sleeps.count == 5)
    }

    @Test func honoursRetryAfterOn429AndSaysSoOnce() async throws {
        let clock = TestClock()
        let notices = Recorder()
        let limited = StubAnswer.http(
            429, body: #"{"error":{"type":"RATE_LIMIT_REACHED"}}"#, headers: ["Retry-After": "7"])
        let (result, _) = await send(
            [limited, limited, .http(200, body: "{}")], method: "POST", kind: .notIdempotent, clock: clock,
            notices: notices)
        #expect(try result.get() == Data("{}".utf8))
        #expect(clock.sleeps == [7.125, 7.125])
        #expect(notices.text == "Airtable is rate limiting this base; waiting 7s before retrying…")
    }

    @Test func without429RetryAfterWaitsOutAirtablesThirtySecondLockout() async throws {
        let clock = TestClock()
        let limited = StubAnswer.http(429, body: "")
        let (result, _) = await send([limited, limited, .http(200, body: "{}")], clock: clock)
        #expect(throws: Never.self) { try result.get() }
        #expect(clock.sleeps == [31.5, 63])
    }

    @Test func stopsWaitingFor429WhenTheBudgetIsSpentWith75() async throws {
        let clock = TestClock()
        let limitedHost = StubTransport.host([], fallback: .http(429, body: ""))
        let helper = Fixture.network(clock: clock, budget: 100)
        let outcome = await helper.send(
            HTTPRequest(url: URL(string: "https://\(limitedHost.name)/")!), kind: .idempotent)
        let error = try #require(outcome.failure)
        #expect(error == .rateLimited(waitedSeconds: 94))
        #expect(error.exitCode == .temporaryFailure)
        #expect(limitedHost.requests.count == 3)
    }

    @Test func aRecorded429BodyIsWaitedOutAsARateLimit() async throws {
        let clock = TestClock()
        let limited = StubAnswer.http(
            429,
            body:
                #"{"errors":[{"error":"RATE_LIMIT_REACHED","message":"Rate limit exceeded. Please try again later"}]}"#)
        let pacer = RecordingPacer()
        let host = StubTransport.host([limited, .http(200, body: "{}")])
        let helper = NetworkHelper(
            transport: StubTransport(), timeoutSeconds: 30,
            policy: RetryPolicy(budgetSeconds: 120),
            pacer: pacer, rules: ProjectAPIClient.rules,
            environment: clock.environment())
        let result = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
        #expect(throws: Never.self) { try result.get() }
        #expect(clock.sleeps == [31.5])
        #expect(pacer.holds == [31.5], "every process on the machine holds back, then slows down")
    }

    @Test func theMonthlyQuotaIsReportedAtOnceAndHoldsNobodyBack() async throws {
        let clock = TestClock()
        let pacer = RecordingPacer()
        let host = StubTransport.host([
            .http(
                429,
                body:
                    #"{"errors":[{"error":"PUBLIC_API_BILLING_LIMIT_EXCEEDED","message":"API billing plan limit exceeded."}]}"#
            )
        ])
        let helper = NetworkHelper(
            transport: StubTransport(), timeoutSeconds: 30,
            policy: RetryPolicy(budgetSeconds: 120),
            pacer: pacer, rules: ProjectAPIClient.rules,
            environment: clock.environment())
        let error = try #require(
            await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent).failure)
        #expect(error.exitCode == .unavailable)
        #expect(
            error.message
                == "the workspace has used up its monthly Airtable API calls (HTTP 429 PUBLIC_API_BILLING_LIMIT_EXCEEDED: API billing plan limit exceeded.)"
        )
        #expect(error.hint?.hasPrefix("Waiting will not help") == true)
        #expect(host.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
        #expect(pacer.holds.isEmpty)
    }

    @Test func aCompressedAnswerIsNotMistakenForACutOffOne() async throws {
        // libcurl inflates the body; Content-Length stays the compressed size, as Airtable sends it.
        let (result, host) = await send([
            .http(
                200, body: #"{"records":[]}"#,
                headers: [
                    "Content-Encoding": "gzip", "Content-Length": "34", "airtable-uncompressed-content-length": "14",
                ])
        ])
        #expect(String(decoding: try result.get(), as: UTF8.self) == #"{"records":[]}"#)
        #expect(host.requests.count == 1)
    }

    /// A real gzip answer is smaller than what it inflates to (the recorded page: 5.6 KB for 41.8 KB); libcurl hands
    /// over the inflated bytes, so Content-Length is less than the body and must not be compared with it.
    @Test func aRealGzipAnswerSmallerThanItsBodyIsWhole() async throws {
        let inflated = FakeAirtable.recordedResponse
        let compressed = FakeAirtable.recordedResponseGzip
        #expect(compressed.count < inflated.count / 5)
        #expect(compressed.prefix(2) == Data([0x1F, 0x8B]), "gzip's magic bytes")
        let (result, host) = await send([
            .http(
                200, body: String(decoding: inflated, as: UTF8.self),
                headers: [
                    "Content-Encoding": "gzip", "Content-Length": String(compressed.count),
                    "airtable-uncompressed-content-length": String(inflated.count),
                ])
        ])
        #expect(try result.get() == inflated)
        #expect(host.requests.count == 1)
    }

    @Test func aBodyShorterThanAirtablesUncompressedLengthIsCutOff() async throws {
        let short = StubAnswer.http(
            200, body: #"{"records":["#,
            headers: ["Content-Encoding": "gzip", "Content-Length": "30", "airtable-uncompressed-content-length": "14"])
        let (read, readHost) = await send([short, .http(200, body: "{}")])
        #expect(throws: Never.self) { try read.get() }
        #expect(readHost.requests.count == 2)
        let (write, writeHost) = await send([short], method: "POST", kind: .notIdempotent)
        #expect(write.failure == .requestOutcomeUnknown("the answer from \(writeHost.name) was cut off"))
        #expect(writeHost.requests.count == 1)
    }

    @Test func anUncompressedBodyShorterThanContentLengthIsCutOff() async throws {
        let (result, host) = await send([
            .http(200, body: "{}", headers: ["Content-Length": "10"]),
            .http(200, body: "{}", headers: ["Content-Length": "2"]),
        ])
        #expect(try result.get() == Data("{}".utf8))
        #expect(host.requests.count == 2)
    }

    @Test func aTransferCurlReportsAsCutOffIsRetriedForReads() async throws {
        let clock = TestClock()
        let notices = Recorder()
        let (result, host) = await send(
            [.curl("transfer closed with 21 bytes remaining to read"), .http(200, body: "{}")], clock: clock,
            notices: notices)
        #expect(throws: Never.self) { try result.get() }
        #expect(host.requests.count == 2)
        #expect(notices.text.contains("the answer was cut off"), "\(notices.text)")
    }

    @Test(arguments: [
        "SSL certificate problem: unable to get local issuer certificate",
        "SSL certificate problem: self-signed certificate in certificate chain",
        "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to api.airtable.com:443",
    ])
    func aTLSFailureIsReportedAtOnceWithCurlsReason(words: String) async throws {
        let clock = TestClock()
        let (result, host) = await send([.curl(words)], clock: clock)
        let error = try #require(result.failure)
        #expect(error == .tls(host: host.name, reason: words))
        #expect(error.exitCode == .unavailable)
        #expect(error.message == "cannot make a secure connection to \(host.name): \(words)")
        #expect(error.hint?.contains("update-ca-certificates") == true)
        #expect(host.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test(arguments: [500, 502, 503, 504])
    func anyServerErrorOnAWriteMayHaveAppliedIt(status: Int) async throws {
        let (result, host) = await send(
            [.http(status, body: ""), .http(200, body: "{}")], method: "POST", kind: .notIdempotent)
        guard case .requestOutcomeUnknown? = result.failure else {
            Issue.record("\(result)")
            return
        }
        #expect(host.requests.count == 1)
    }

    @Test(arguments: [
        (StubAnswer.failure(.unreachable("connection refused")), "connection refused", ExitCode.unavailable),
        (.failure(.unreachable("host name not found")), "host name not found", .unavailable),
        (.failure(.broken("connection reset")), "connection reset", .unavailable),
        (.failure(.timedOut), "did not answer within 30s", .temporaryFailure),
        (
            .curl("Failed to connect to x port 443 after 0 ms: Couldn't connect to server"), "Couldn't connect",
            .unavailable
        ),
        (
            .curl("SSL certificate problem: unable to get local issuer certificate"), "SSL certificate problem",
            .unavailable
        ),
        (.curl("Recv failure: Connection reset by peer"), "connection reset", .unavailable),
    ])
    func describesNetworkFailuresInWords(answer: StubAnswer, fragment: String, exit: ExitCode) async throws {
        let host = StubTransport.host([], fallback: answer)
        let helper = Fixture.network(clock: TestClock())
        let error = try #require(
            await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent).failure)
        #expect(error.message.contains(fragment), "\(error.message)")
        // The stub's host name is a random UUID, which may itself hold "-10".
        let words = error.message.replacingOccurrences(of: host.name, with: "HOST")
        #expect(!words.contains("NSURLErrorDomain") && !words.contains("-10"), "\(words)")
        #expect(error.exitCode == exit)
    }

    @Test func readsRetryAfterAsSecondsOrAnHTTPDate() {
        #expect(NetworkHelper.parseRetryAfter("12") == 12)
        #expect(NetworkHelper.parseRetryAfter("soon") == nil)
        let date = NetworkHelper.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(date == 0)
    }

    @Test func backoffIsCappedAndJittered() {
        let policy = RetryPolicy(budgetSeconds: 120)
        #expect(policy.transientDelay(attempt: 0, random: 0) == 0.25)
        #expect(policy.transientDelay(attempt: 0, random: 1) == 0.5)
        #expect(policy.transientDelay(attempt: 10, random: 1) == 8)
        #expect(policy.rateLimitDelay(attempt: 0, retryAfter: nil, random: 0) == 30)
        #expect(policy.rateLimitDelay(attempt: 5, retryAfter: nil, random: 0) == 120)
    }
}

@Test func onATerminalEveryRateLimitWaitCountsDown() async throws {
    let clock = TestClock()
    let lines = Recorder()
    var environment = clock.environment()
    environment.status = { lines.append(($0 ?? "<clear>") + "\n") }
    let limited = StubAnswer.http(
        429, body: #"{"errors":[{"error":"RATE_LIMIT_REACHED"}]}"#, headers: ["Retry-After": "3"])
    let host = StubTransport.host([limited, limited, .http(200, body: "{}")])
    let helper = NetworkHelper(
        transport: StubTransport(), timeoutSeconds: 30,
        policy: RetryPolicy(budgetSeconds: 120),
        pacer: UnlimitedPacer(), rules: ProjectAPIClient.rules, environment: environment)
    let result = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
    #expect(throws: Never.self) { try result.get() }
    let countdown = [
        "Airtable is rate limiting this base; retrying in 4s…", "Airtable is rate limiting this base; retrying in 3s…",
        "Airtable is rate limiting this base; retrying in 2s…", "Airtable is rate limiting this base; retrying in 1s…",
        "<clear>",
    ]
    #expect(lines.lines == countdown + countdown, "said again for the second lockout")
    #expect(abs(clock.sleeps.reduce(0, +) - 6.25) < 1e-9)
}

@Test func aWaitBehindOtherProcessesOfMoreThanASecondIsSaid() async throws {
    struct Busy: RequestPacer {
        func nextTurn() -> Double { 2.5 }
        func rateLimited(holdingFor seconds: Double) {}
    }
    let clock = TestClock()
    let lines = Recorder()
    var environment = clock.environment()
    environment.status = { lines.append(($0 ?? "<clear>") + "\n") }
    let host = StubTransport.host([.http(200, body: "{}")])
    let helper = NetworkHelper(
        transport: StubTransport(), timeoutSeconds: 30,
        policy: RetryPolicy(budgetSeconds: 120),
        pacer: Busy(), rules: ProjectAPIClient.rules, environment: environment)
    _ = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
    #expect(
        lines.lines == [
            "waiting 3s behind other tracker processes using this base…",
            "waiting 2s behind other tracker processes using this base…",
            "waiting 1s behind other tracker processes using this base…", "<clear>",
        ])
}

/// A request whose confirmation finds it late sleeps for the new slot and confirms again before it goes; it is sent
/// once, only after a confirmation says go. Without the confirmation it went on its first wake.
@Test func aRequestConfirmsItsSlotBeforeItLeavesAndWaitsAgainWhenLate() async throws {
    final class LateOnce: RequestPacer, @unchecked Sendable {
        let lock = NSLock()
        var confirmed: [PaceTurn] = []
        func nextTurn() -> Double { 0.2 }
        func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn {
            PaceTurn(wait: 0.2, slots: ["base": 1])
        }
        func confirmTurn(_ turn: PaceTurn) -> PaceTurn {
            lock.lock()
            defer { lock.unlock() }
            confirmed.append(turn)
            return confirmed.count == 1 ? PaceTurn(wait: 1.3, slots: ["base": 2]) : PaceTurn(wait: 0, slots: turn.slots)
        }
        func rateLimited(holdingFor seconds: Double) {}
    }
    let clock = TestClock()
    let pacer = LateOnce()
    let host = StubTransport.host([.http(200, body: "{}")])
    let helper = NetworkHelper(
        transport: StubTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120), pacer: pacer,
        rules: ProjectAPIClient.rules, environment: clock.environment())
    let result = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
    #expect(throws: Never.self) { try result.get() }
    #expect(clock.sleeps == [0.2, 1.3], "the slot, then the new slot")
    #expect(pacer.confirmed.map(\.slots) == [["base": 1], ["base": 2]], "each slot confirmed before the send")
    #expect(host.requests.count == 1)
}

/// Remembers what the helper told the pacer.
final class RecordingPacer: RequestPacer, @unchecked Sendable {
    private let lock = NSLock()
    private var told: [Double] = []

    var holds: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return told
    }

    func nextTurn() -> Double { 0 }

    func rateLimited(holdingFor seconds: Double) {
        lock.lock()
        told.append(seconds)
        lock.unlock()
    }
}

@Suite struct MissingLibraryTests {
    @Test func withoutLibcurlOneLineSaysWhatToInstallAndNothingIsRetried() async throws {
        let clock = TestClock()
        let helper = NetworkHelper(
            transport: MissingCurlTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: RecordingPacer(), rules: ProjectAPIClient.rules, environment: clock.environment())
        let result = await helper.send(HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!), kind: .idempotent)
        guard case .failure(let error) = result else {
            Issue.record("sent without libcurl")
            return
        }
        #expect(error.exitCode == .unavailable)
        #expect(
            error.message.hasPrefix("libcurl (libcurl.so.4), which tracker sends its requests with, is not installed"))
        #expect(error.message.contains("apt-get install libcurl4") && error.message.contains("libcurl4t64"))
        #expect(error.message.contains("dnf install libcurl"))
        // The network is not the problem: no "cannot reach", no "check your connection", no retries.
        #expect(!error.message.contains("cannot reach") && error.hint == nil)
        #expect(clock.sleeps.isEmpty)
    }
}

/// A schedule a day ahead (written by anyone who can write to the team's Redis) is refused with 75 naming who asked,
/// never slept through; without the bound the request waited the day out.
@Test func aWaitLongerThanTheRetryBudgetIsRefusedNamingWhoAskedForIt() async throws {
    struct FarAhead: RequestPacer {
        func nextTurn() -> Double { 86400 }
        func rateLimited(holdingFor seconds: Double) {}
        var scheduleKeeper: String? { "the team's Redis at redis://cache:6379" }
    }
    let clock = TestClock()
    let host = StubTransport.host([.http(200, body: "{}")])
    let helper = NetworkHelper(
        transport: StubTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
        pacer: FarAhead(), rules: ProjectAPIClient.rules, environment: clock.environment())
    let error = try #require(
        await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent).failure)
    #expect(error == .waitRefused(who: "the team's Redis at redis://cache:6379", seconds: 86400, budget: 120))
    #expect(error.exitCode == .temporaryFailure)
    #expect(
        error.message
            == "the team's Redis at redis://cache:6379 asks every request to wait 86400s, longer than the retry budget (120s); not waiting"
    )
    #expect(clock.sleeps.isEmpty)
    #expect(host.requests.isEmpty)
}

/// A `Retry-After: 3600` ends the command at once (75, naming the header), and only a hold tracker could have written
/// is shared with every other process; before, the hour was shared with every machine first.
@Test func aRetryAfterPastTheBudgetIsNotWaitedNorSharedWhole() async throws {
    let clock = TestClock()
    let pacer = RecordingPacer()
    let host = StubTransport.host([
        .http(429, body: #"{"errors":[{"error":"RATE_LIMIT_REACHED"}]}"#, headers: ["Retry-After": "3600"])
    ])
    let helper = NetworkHelper(
        transport: StubTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120), pacer: pacer,
        rules: ProjectAPIClient.rules, environment: clock.environment())
    let error = try #require(
        await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent).failure)
    guard case .waitRefused(let who, let seconds, let budget) = error else {
        Issue.record("expected a refused wait, got \(error)")
        return
    }
    #expect(who.hasSuffix("Retry-After") && seconds == 3600 && budget == 120)
    #expect(clock.sleeps.isEmpty)
    #expect(pacer.holds.allSatisfy { $0 <= 300 } && pacer.holds.count == 1, "five minutes at most is shared")
}

/// A request whose turn, confirmed after its first wait, asks for longer than the retry budget is refused; when this
/// machine holds back after Airtable's 429 it names Airtable's 429 first (a board's one line said "the base's schedule
/// on this machine", the cause unsaid); a schedule merely full keeps its own words.
@Test(arguments: [true, false])
func aHoldAfterA429IsSaidAsAirtablesWhenItRefusesAWait(held: Bool) async throws {
    /// This machine's schedule as a loaded machine meets it: a short wait, then, confirmed, a long one.
    struct LateTurns: RequestPacer {
        let schedule: FileRequestPacer
        func nextTurn() -> Double { 0.5 }
        func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn { PaceTurn(wait: 0.5) }
        func confirmTurn(_ turn: PaceTurn) -> PaceTurn { PaceTurn(wait: 30) }
        func rateLimited(holdingFor seconds: Double) {}
        func currentPace() -> CurrentPace? { schedule.currentPace() }
    }
    let (schedule, _, clock, directory) = twoProcessesSharingASlotFile()
    defer { _ = directory }
    if held { schedule.rateLimited(holdingFor: 30) }
    let host = StubTransport.host([.http(200, body: "{}")])
    let helper = NetworkHelper(
        transport: StubTransport(), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 5),
        pacer: LateTurns(schedule: schedule), rules: ProjectAPIClient.rules, environment: clock.environment())
    let error = try #require(
        await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent).failure)
    guard case .waitRefused(let who, _, let budget) = error else {
        Issue.record("expected a refused wait, got \(error)")
        return
    }
    #expect(who == (held ? "Airtable's 429 hold on this machine" : "the base's schedule on this machine"))
    #expect(budget == 5)
    #expect(host.requests.isEmpty)
}

/// Sleeping on a number from outside never traps, however large (a hold of 99999999999 s was exit 132).
@Test func sleepingAnyLengthNeverTraps() async {
    let task = Task { await MonotonicClock.sleep(99_999_999_999) }
    task.cancel()
    await task.value
}

/// The transport is made ready (libcurl loaded) before the request takes its turn, so nothing but the sending falls
/// between the turn's confirmation and the request leaving (broken by a transport loaded at the send: on a loaded
/// machine the load spends the margin the confirmation keeps, and the request crowds the next window's second).
@Test func theTransportIsReadyBeforeTheRequestTakesItsTurn() async throws {
    let events = Locked<[String]>([])
    struct Ordered: HTTPTransport {
        let events: Locked<[String]>
        func prepare() { events.withLock { $0.append("prepare") } }
        func send(_ request: TrackerNetwork.HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
            events.withLock { $0.append("send") }
            return await StubTransport().send(request, fresh: fresh, timeout: timeout)
        }
    }
    struct Ordering: RequestPacer {
        let events: Locked<[String]>
        func nextTurn() -> Double { 0 }
        func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn {
            events.withLock { $0.append("turn") }
            return PaceTurn(wait: 0.2, slots: ["base": 1])
        }
        func confirmTurn(_ turn: PaceTurn) -> PaceTurn {
            events.withLock { $0.append("confirm") }
            return PaceTurn(wait: 0, slots: turn.slots)
        }
        func rateLimited(holdingFor seconds: Double) {}
    }
    let host = StubTransport.host([.http(200, body: "{}")])
    let helper = NetworkHelper(
        transport: Ordered(events: events), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
        pacer: Ordering(events: events), rules: ProjectAPIClient.rules, environment: TestClock().environment())
    let result = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
    #expect(throws: Never.self) { try result.get() }
    #expect(events.withLock { $0 } == ["prepare", "turn", "confirm", "send"])
}
