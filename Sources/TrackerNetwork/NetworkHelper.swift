#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Dispatch
import TrackerSystem
import TrackerModel

/// Whether a request may be sent again when its answer is lost.
public enum RequestKind: Sendable {
    /// Reads, and anything else the service applies at most once however often it arrives.
    case idempotent
    /// Creates: a lost answer leaves the outcome unknown, so it is never re-sent blindly.
    case notIdempotent
}

/// What a service's answers mean beyond HTTP, given to `NetworkHelper` by the layer that knows the service.
public struct ServiceRules: Sendable {
    /// The error an answer with this (non-2xx) status and body stands for.
    var error: @Sendable (_ status: Int, _ body: Data) -> AppError
    /// Whether a 429 is a limit that waiting cannot lift: it is reported at once, and nobody else is held back.
    var isFinalLimit: @Sendable (AppError) -> Bool
    /// A header that carries a compressed body's length once inflated, by which a cut-off answer is told.
    var inflatedLengthHeader: String?
    /// The service's name in what people are told while tracker waits on it.
    var serviceName: String

    public init(
        error: @escaping @Sendable (Int, Data) -> AppError, isFinalLimit: @escaping @Sendable (AppError) -> Bool,
        inflatedLengthHeader: String?, serviceName: String = "the server"
    ) {
        self.error = error
        self.isFinalLimit = isFinalLimit
        self.inflatedLengthHeader = inflatedLengthHeader
        self.serviceName = serviceName
    }

    /// HTTP alone: a status and no more.
    public static let plainHTTP = ServiceRules(
        error: { status, _ in .http(status: status, ServiceError(type: nil, message: nil)) },
        isFinalLimit: { _ in false },
        inflatedLengthHeader: nil)
}

/// Sends HTTP requests: paces them, applies the timeout, retries what is safe, and maps failures to `AppError`.
public final class NetworkHelper: Sendable {
    /// What the helper needs from the outside world, injected so tests run without sleeping.
    public struct Environment: Sendable {
        public var now: @Sendable () -> Double
        public var sleep: @Sendable (Double) async -> Void
        var random: @Sendable () -> Double
        /// Receives one line per request when --verbose is on.
        public var log: (@Sendable (String) -> Void)?
        /// Receives the one-time "retrying" notices, when stderr is a terminal.
        public var notify: (@Sendable (String) -> Void)?
        /// Shows what is being waited for on a line redrawn in place (nil clears it), when stderr is a terminal.
        public var status: (@Sendable (String?) -> Void)?
        /// The face sending (`cli`, `board`, `mcp`, `serve`), as the month's count keeps it.
        public var face = "cli"

        public init(
            now: @escaping @Sendable () -> Double = MonotonicClock.now,
            sleep: @escaping @Sendable (Double) async -> Void = NetworkHelper.sleep,
            random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
            log: (@Sendable (String) -> Void)? = nil, notify: (@Sendable (String) -> Void)? = nil
        ) {
            self.now = now
            self.sleep = sleep
            self.random = random
            self.log = log
            self.notify = notify
        }
    }

    let transport: any HTTPTransport
    let timeoutSeconds: Int
    let policy: RetryPolicy
    let pacer: any RequestPacer
    /// Where every request sent is counted for the month.
    public let usage: any UsageLedger
    let rules: ServiceRules
    let environment: Environment
    private let hasNotified = Locked(false)
    /// The server's time, from the `Date` of every answer.
    public let serverClock: ServerClock

    public init(
        transport: any HTTPTransport, timeoutSeconds: Int, policy: RetryPolicy, pacer: any RequestPacer,
        rules: ServiceRules = .plainHTTP, environment: Environment = Environment(),
        usage: any UsageLedger = NoUsageLedger()
    ) {
        self.transport = transport
        self.timeoutSeconds = timeoutSeconds
        self.policy = policy
        self.pacer = pacer
        self.usage = usage
        self.rules = rules
        self.environment = environment
        serverClock = ServerClock(localNow: environment.now)
    }

    /// The transport for this platform: libcurl's easy interface on Linux (URLSession there spins while it waits),
    /// URLSession on macOS.
    public static func makeTransport(timeoutSeconds: Int) -> any HTTPTransport {
        #if os(Linux)
            return LoadingCurlTransport()
        #else
            return URLSessionTransport(
                session: URLSessionTransport.makeSession(timeoutSeconds: timeoutSeconds),
                freshSession: { URLSessionTransport.makeSession(timeoutSeconds: timeoutSeconds) })
        #endif
    }

    /// Starts loading the platform's transport on a thread of its own, so that loading libcurl and the ~30 libraries
    /// behind it (5 ms) overlaps reading the configuration and the cache instead of delaying the first request.
    public static func preloadTransport() {
        #if os(Linux)
            let done = DispatchSemaphore(value: 0)
            // Once a process: the first caller starts it (main, before anything else, for a command that will send).
            guard
                preloading.withLock({ current in
                    defer { if current == nil { current = done } }
                    return current == nil
                })
            else { return }
            if !DetachedThread.start({
                _ = CurlTransport.load()
                done.signal()
            }) {
                done.signal()
            }
        #endif
    }

    /// Waits (a second at most) for a transport still loading: a process that exits while a library is being loaded
    /// on another thread can crash in the loader.
    public static func settle() { _ = preloading.withLock { $0 }?.wait(timeout: .now() + 1) }

    private static let preloading = Locked<DispatchSemaphore?>(nil)

    /// Sleeps for `seconds`, returning early if the task is cancelled.
    @Sendable public static func sleep(_ seconds: Double) async { await MonotonicClock.sleep(seconds) }

    /// Sends `request`, retrying within the policy, and returns the body of a 2xx answer. `beforeEachAttempt` runs
    /// right before each attempt goes out, after its slot and any 429's hold: an exactly-once write confirms its lock
    /// there, so a lease lost while it waited stops it with nothing sent.
    @_spi(Sending) public func send(
        _ request: HTTPRequest, kind: RequestKind,
        beforeEachAttempt: (@Sendable () throws(AppError) -> Void)? = nil
    ) async -> Result<Data, AppError> {
        let started = environment.now()
        var transientRetries = 0
        var rateLimitRetries = 0
        var rateLimitWaited = 0.0
        // Ready to send before the turn is taken: a library loaded between the turn's confirmation and the request
        // leaving (the board loads libcurl late) would spend the margin the confirmation keeps for the network.
        transport.prepare()
        // A transport that says when its connection is open connects first and takes the turn there, so only the
        // request's bytes follow the turn and it arrives a network's jitter after it leaves.
        let connectsFirst = transport.connectsBeforeSending
        // A turn confirmed at the gate further off than a connection is held open for, slept out before connecting.
        var carried: (turn: PaceTurn, at: Double)?
        while true {
            // Airtable counts a request where it arrives: one whose connection may open after its turn (a transport
            // that cannot say when it is open) arrives up to the handshakes' time later than it leaves, and is paced so.
            let spread = connectsFirst ? 0 : PaceSchedule.coldSpread
            var turn: PaceTurn
            var reservedAt = environment.now()
            if let (kept, at) = carried {
                (turn, reservedAt, carried) = (kept, at, nil)
            } else {
                do { turn = try pacer.reserveTurn(notBefore: 0, spread: spread) } catch { return .failure(error) }
            }
            let taking = TakingTurn(started: started, rateLimitWaited: rateLimitWaited, before: beforeEachAttempt)
            let outcome: TransportOutcome
            if connectsFirst {
                // Connect ahead of the turn by the handshakes' worst (DNS, TCP, TLS), then confirm it once connected.
                let ahead = turn.wait - (environment.now() - reservedAt) - PaceSchedule.coldSpread
                if ahead > 0 {
                    if let refusal = refusal(waiting: turn.wait, taking) { return .failure(refusal) }
                    await pause(ahead)
                    if Task.isCancelled { return .failure(.interrupted) }
                }
                let (reserved, given) = (turn, reservedAt)
                let ended = Locked<TurnTaken>(.go)
                outcome = await attempt(request, kind: kind) {
                    var turn = reserved
                    let elapsed = self.environment.now() - given
                    turn.wait -= elapsed
                    // A turn given for now, connected at once (an open connection): nothing to confirm.
                    let confirming = reserved.wait > 0 || elapsed >= 0.005
                    // The transfer's deadline runs while the gate holds it: a long wait is slept out before
                    // connecting again, never with the connection open.
                    let taken = await self.take(turn, taking, confirmingNow: confirming, holdingAtMost: 1)
                    ended.withLock { $0 = taken }
                    if case .go = taken { return true }
                    return false
                }
                switch ended.withLock({ $0 }) {
                case .go: break
                case .stopped(let error): return .failure(error)
                case .later(let turn):
                    carried = (turn, environment.now())
                    continue
                }
            } else {
                if case .stopped(let error) = await take(turn, taking, confirmingNow: false) { return .failure(error) }
                outcome = await attempt(request, kind: kind)
            }
            if Task.isCancelled { return .failure(.interrupted) }
            let decision = classify(outcome, kind: kind, host: request.url.host ?? "the service")
            let delay: Double
            switch decision {
            case .done(let result):
                // Airtable says the workspace's month of calls is spent: every face hears it through the count.
                if case .failure(let error) = result, rules.isFinalLimit(error) { usage.markSpent() }
                return result
            case .rateLimited(let retryAfter, let error):
                delay = policy.rateLimitDelay(
                    attempt: rateLimitRetries, retryAfter: retryAfter, random: environment.random())
                // Every tracker process holds back and then slows down, not just this one; a hold longer than any
                // lockout Airtable documents is not passed on to them on one answer's word.
                pacer.rateLimited(holdingFor: min(delay, PaceSchedule.longestHold))
                guard environment.now() - started + delay <= policy.budgetSeconds else {
                    if let retryAfter, retryAfter > policy.budgetSeconds {
                        return .failure(
                            .waitRefused(
                                who: "\(rules.serviceName)'s Retry-After",
                                seconds: Int(min(retryAfter, 1e9).rounded(.up)),
                                budget: Int(policy.budgetSeconds)))
                    }
                    return .failure(rateLimitWaited > 0 ? .rateLimited(waitedSeconds: Int(rateLimitWaited)) : error)
                }
                rateLimitRetries += 1
                rateLimitWaited += delay
                // With a status line every lockout is counted down; without one, the first is said once.
                if environment.status == nil {
                    notifyOnce(
                        "\(rules.serviceName) is rate limiting this base; waiting \(max(1, Int(delay.rounded())))s before retrying…"
                    )
                }
                await wait(delay) { "\(self.rules.serviceName) is rate limiting this base; retrying in \($0)s…" }
                if Task.isCancelled { return .failure(.interrupted) }
                continue
            case .transient(let retryAfter, let error):
                delay = retryAfter ?? policy.transientDelay(attempt: transientRetries, random: environment.random())
                guard transientRetries < policy.maxTransientRetries,
                    environment.now() - started + delay <= policy.budgetSeconds
                else { return .failure(error) }
                transientRetries += 1
                notifyOnce("\(describeTransient(error)); retrying…")
            }
            await environment.sleep(delay)
            if Task.isCancelled { return .failure(.interrupted) }
        }
    }

    /// Whether a request may have reached the server, and so counts against the month: not when it could not connect.
    static func mayHaveArrived(_ outcome: TransportOutcome) -> Bool {
        switch outcome {
        case .answered: true
        case .failed(.unreachable), .failed(.missingLibrary), .failed(.tls), .failed(.local): false
        case .failed: true
        }
    }

    /// Sleeps `seconds`, counting down on the status line when there is one.
    func wait(_ seconds: Double, saying text: (Int) -> String) async {
        guard let status = environment.status else { return await environment.sleep(seconds) }
        var left = seconds
        while left > 0 && !Task.isCancelled {
            status(text(Int(left.rounded(.up))))
            let step = min(1, left)
            await environment.sleep(step)
            left -= step
        }
        status(nil)
    }

    /// The helper's clock, for work that must fit in the retry budget.
    public func now() -> Double { environment.now() }

    /// Tells a person at a terminal what tracker is waiting for, once per command.
    public func notice(_ text: String) { environment.notify?(text) }

    /// Runs `probe` again, pausing 1, 2, 4 and then 8 seconds, until it finds something or `seconds` counted from
    /// `started` are spent (at most the retry budget): `.success(nil)` then.
    public func poll<T>(
        startedAt started: Double, within seconds: Double? = nil, _ probe: () async -> Result<T?, AppError>
    )
        async -> Result<T?, AppError>
    {
        let limit = min(seconds ?? policy.budgetSeconds, policy.budgetSeconds)
        var pause = 1.0
        while true {
            switch await probe() {
            case .success(let found?): return .success(found)
            case .failure(let error): return .failure(error)
            case .success(nil): break
            }
            guard environment.now() - started + pause <= limit else { return .success(nil) }
            await environment.sleep(pause)
            if Task.isCancelled { return .failure(.interrupted) }
            pause = min(pause * 2, 8)
        }
    }

    func notifyOnce(_ text: String) {
        let isFirst = hasNotified.withLock { done in
            defer { done = true }
            return !done
        }
        if isFirst { environment.notify?(text) }
    }

    // MARK: - One attempt

    private func attempt(
        _ request: HTTPRequest, kind: RequestKind, whenConnected: (@Sendable () async -> Bool)? = nil
    ) async -> TransportOutcome {
        let start = environment.now()
        // libcurl silently sends a request again on a fresh connection when a reused one dies before answering. For a
        // create that would be a second project, and a body it cannot replay hangs until the timeout; on a new
        // connection of its own a write is sent once, and its failures come to us.
        let isWrite = kind == .notIdempotent || request.body != nil
        let timeout = Double(timeoutSeconds)
        let outcome: TransportOutcome
        if let whenConnected {
            let letGo = Locked(false)
            outcome = await transport.send(request, fresh: isWrite, timeout: timeout) {
                let go = await whenConnected()
                letGo.withLock { $0 = go }
                return go
            }
            // Held back at its gate: nothing was sent, nothing to count or log.
            if !letGo.withLock({ $0 }) { return outcome }
        } else {
            outcome = await transport.send(request, fresh: isWrite, timeout: timeout)
        }
        if Self.mayHaveArrived(outcome) {
            let use: RequestUse =
                RequestPurpose.current == .background ? .upkeep : request.method == "GET" ? .read : .write
            usage.count(face: environment.face, use: use)
        }
        if case .answered(let answer) = outcome, let date = answer.header("Date").flatMap(Self.httpDate) {
            serverClock.heard(serverSeconds: date)
        }
        if let log = environment.log {
            let status: String
            switch outcome {
            case .answered(let answer): status = String(answer.status)
            case .failed(let failure): status = failure.words
            }
            let path = Self.loggablePath(request.url)
            let milliseconds = Int((environment.now() - start) * 1000)
            log("\(request.method) \(path) \(status) \(milliseconds)ms")
        }
        return outcome
    }
}
