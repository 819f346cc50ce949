import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whether a request may be sent again when its answer is lost.
public enum RequestKind: Sendable {
    /// Reads, and anything else Airtable applies at most once however often it arrives.
    case idempotent
    /// Creates: a lost answer leaves the outcome unknown, so it is never re-sent blindly.
    case notIdempotent
}

/// Sends HTTP requests: paces them, applies the timeout, retries what is safe, and maps failures to `AppError`.
public final class NetworkHelper: Sendable {
    /// What the helper needs from the outside world, injected so tests run without sleeping.
    public struct Environment: Sendable {
        public var now: @Sendable () -> Double
        public var sleep: @Sendable (Double) async -> Void
        public var random: @Sendable () -> Double
        /// Receives one line per request when --verbose is on.
        public var log: (@Sendable (String) -> Void)?
        /// Receives the one-time "retrying" notices, when stderr is a terminal.
        public var notify: (@Sendable (String) -> Void)?
        /// Shows what is being waited for on a line redrawn in place (nil clears it), when stderr is a terminal.
        public var status: (@Sendable (String?) -> Void)?

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

    private let session: URLSession
    private let freshSession: (@Sendable () -> URLSession)?
    private let timeoutSeconds: Int
    private let policy: RetryPolicy
    private let pacer: any RequestPacer
    private let environment: Environment
    private let hasNotified = Locked(false)

    /// `freshSession` makes a session of its own for each write, so its request goes on a new connection (see
    /// `attempt`); without it every request shares `session`.
    public init(
        session: URLSession, freshSession: (@Sendable () -> URLSession)? = nil, timeoutSeconds: Int,
        policy: RetryPolicy, pacer: any RequestPacer, environment: Environment = Environment()
    ) {
        self.session = session
        self.freshSession = freshSession
        self.timeoutSeconds = timeoutSeconds
        self.policy = policy
        self.pacer = pacer
        self.environment = environment
    }

    /// An ephemeral session with no cache or cookies (answers may hold private data) and the per-request timeout.
    public static func makeSession(timeoutSeconds: Int) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Linux truncates this to whole seconds, and treats it as an idle timeout; `send` adds a hard deadline.
        configuration.timeoutIntervalForRequest = TimeInterval(timeoutSeconds)
        return URLSession(configuration: configuration)
    }

    /// Sleeps for `seconds`, returning early if the task is cancelled.
    @Sendable public static func sleep(_ seconds: Double) async {
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }

    /// Sends `request`, retrying within the policy, and returns the body of a 2xx answer.
    public func send(_ request: URLRequest, kind: RequestKind) async -> Result<Data, AppError> {
        let started = environment.now()
        var transientRetries = 0
        var rateLimitRetries = 0
        var rateLimitWaited = 0.0
        while true {
            let turn = pacer.nextTurn()
            // Other tracker processes are using this base; a person should not wonder why nothing happens.
            if turn > 1 {
                await wait(turn) { "waiting \($0)s behind other tracker processes using this base…" }
            } else if turn > 0 {
                await environment.sleep(turn)
            }
            let outcome = await attempt(request, kind: kind)
            if Task.isCancelled { return .failure(.interrupted) }
            let decision = classify(outcome, kind: kind, host: request.url?.host ?? "Airtable")
            let delay: Double
            switch decision {
            case .done(let result):
                return result
            case .rateLimited(let retryAfter, let error):
                delay = policy.rateLimitDelay(
                    attempt: rateLimitRetries, retryAfter: retryAfter, random: environment.random())
                // Every tracker process on the machine holds back and then slows down, not just this one.
                pacer.rateLimited(holdingFor: delay)
                guard environment.now() - started + delay <= policy.budgetSeconds else {
                    return .failure(rateLimitWaited > 0 ? .rateLimited(waitedSeconds: Int(rateLimitWaited)) : error)
                }
                rateLimitRetries += 1
                rateLimitWaited += delay
                // With a status line every lockout is counted down; without one, the first is said once.
                if environment.status == nil {
                    notifyOnce(
                        "Airtable is rate limiting this base; waiting \(max(1, Int(delay.rounded())))s before retrying…"
                    )
                }
                await wait(delay) { "Airtable is rate limiting this base; retrying in \($0)s…" }
                if Task.isCancelled { return .failure(.interrupted) }
                continue
            case .transient(let retryAfter, let error):
                delay = retryAfter ?? policy.transientDelay(attempt: transientRetries, random: environment.random())
                guard transientRetries < policy.maxTransientRetries,
                    environment.now() - started + delay <= policy.budgetSeconds
                else { return .failure(error) }
                transientRetries += 1
                notifyOnce("\(Self.describeTransient(error)); retrying…")
            }
            await environment.sleep(delay)
            if Task.isCancelled { return .failure(.interrupted) }
        }
    }

    /// Sleeps `seconds`, counting down on the status line when there is one.
    private func wait(_ seconds: Double, saying text: (Int) -> String) async {
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
    public func notice(_ text: String) { notifyOnce(text) }

    /// Runs `probe` again, pausing 1, 2, 4 and then 8 seconds, until it finds something or the retry budget, counted
    /// from `started`, is spent: `.success(nil)` then.
    public func poll<T>(startedAt started: Double, _ probe: () async -> Result<T?, AppError>) async -> Result<
        T?, AppError
    > {
        var pause = 1.0
        while true {
            switch await probe() {
            case .success(let found?): return .success(found)
            case .failure(let error): return .failure(error)
            case .success(nil): break
            }
            guard environment.now() - started + pause <= policy.budgetSeconds else { return .success(nil) }
            await environment.sleep(pause)
            if Task.isCancelled { return .failure(.interrupted) }
            pause = min(pause * 2, 8)
        }
    }

    private func notifyOnce(_ text: String) {
        let isFirst = hasNotified.withLock { done in
            defer { done = true }
            return !done
        }
        if isFirst { environment.notify?(text) }
    }

    // MARK: - One attempt

    private enum Outcome {
        case answered(HTTPURLResponse, Data)
        /// The transfer failed; `detail` is libcurl's own words, which Linux reports under URLError -1.
        case failed(URLError.Code, detail: String?)
        case deadlineExceeded
    }

    private func attempt(_ request: URLRequest, kind: RequestKind) async -> Outcome {
        let start = environment.now()
        // libcurl silently sends a request again on a fresh connection when a reused one dies before answering. For a
        // create that would be a second project, and a body it cannot replay hangs until the timeout; on a new
        // connection of its own a write is sent once, and its failures come to us.
        let isWrite = kind == .notIdempotent || request.httpBody != nil
        let session = isWrite ? freshSession?() ?? self.session : self.session
        defer { if session !== self.session { session.finishTasksAndInvalidate() } }
        let outcome = await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { [session] in
                do {
                    let (data, response) = try await session.data(for: request)
                    guard let http = response as? HTTPURLResponse else {
                        return .failed(.badServerResponse, detail: nil)
                    }
                    return .answered(http, data)
                } catch let error as URLError {
                    return .failed(error.code, detail: error.userInfo[NSLocalizedDescriptionKey] as? String)
                } catch {
                    return .failed(.unknown, detail: nil)
                }
            }
            group.addTask { [timeoutSeconds] in
                // Real time on purpose: this guards against a server that trickles bytes past the idle timeout.
                await Self.sleep(Double(timeoutSeconds) + 0.5)
                return Task.isCancelled ? nil : .deadlineExceeded
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .deadlineExceeded
        }
        if let log = environment.log {
            let status: String
            switch outcome {
            case .answered(let response, _): status = String(response.statusCode)
            case .failed(let code, let detail): status = Self.describe(code, detail: detail)
            case .deadlineExceeded: status = "timed out"
            }
            let path = request.url.map(Self.loggablePath) ?? ""
            let milliseconds = Int((environment.now() - start) * 1000)
            log("\(request.httpMethod ?? "GET") \(path) \(status) \(milliseconds)ms")
        }
        return outcome
    }

    // MARK: - Classifying answers

    private enum Decision {
        case done(Result<Data, AppError>)
        case rateLimited(retryAfter: Double?, AppError)
        case transient(retryAfter: Double?, AppError)
    }

    private func classify(_ outcome: Outcome, kind: RequestKind, host: String) -> Decision {
        switch outcome {
        case .answered(let response, let data):
            return classify(response, data: data, kind: kind, host: host)
        case .deadlineExceeded:
            return failure(.timedOut(seconds: timeoutSeconds), kind: kind)
        case .failed(let code, let detail):
            return failure(code, detail: detail, kind: kind, host: host)
        }
    }

    private func classify(_ response: HTTPURLResponse, data: Data, kind: RequestKind, host: String) -> Decision {
        let status = response.statusCode
        let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap(Self.parseRetryAfter)
        if (200..<300).contains(status) {
            if Self.isCutOff(response, data: data) {
                return failure(.network("the answer from \(host) was cut off"), kind: kind)
            }
            return .done(.success(data))
        }
        let body = ErrorEnvelope.parse(data) ?? AirtableErrorBody(type: nil, message: nil)
        let error = AppError.http(status: status, body)
        switch status {
        case 429 where body.type == AirtableErrorBody.billingLimitType:
            // The monthly quota: waiting does not help, and other processes must not be held back for it.
            return .done(.failure(error))
        case 429:
            return .rateLimited(retryAfter: retryAfter, error)
        case 500...599:
            // A 503 "could have timed out processing your request": any 5xx may have applied a write.
            guard kind == .idempotent else { return .done(.failure(.requestOutcomeUnknown(error.message))) }
            return .transient(retryAfter: retryAfter, error)
        default:
            return .done(.failure(error))
        }
    }

    /// Whether a 2xx body is shorter than the server said. libcurl inflates compressed answers, so `Content-Length`
    /// (the compressed size) only counts for an uncompressed body; Airtable adds the inflated size in its own header.
    /// A body that stops short of `Content-Length` on the wire already fails the transfer itself.
    static func isCutOff(_ response: HTTPURLResponse, data: Data) -> Bool {
        if let inflated = response.value(forHTTPHeaderField: "airtable-uncompressed-content-length").flatMap(Int.init) {
            return data.count != inflated
        }
        let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.lowercased() ?? "identity"
        guard coding == "identity",
            let declared = response.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init)
        else { return false }
        return data.count != declared
    }

    private func failure(_ code: URLError.Code, detail: String?, kind: RequestKind, host: String) -> Decision {
        switch code {
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            // Nothing reached the server, so even a create may be sent again.
            return .transient(retryAfter: nil, .network("cannot reach \(host): \(Self.describe(code, detail: detail))"))
        case .timedOut:
            return failure(.timedOut(seconds: timeoutSeconds), kind: kind)
        case .cancelled:
            return .done(.failure(.interrupted))
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            return .done(.failure(.tls(host: host, reason: detail ?? Self.describe(code, detail: nil))))
        default:
            // Linux reports most libcurl failures as URLError -1 with curl's words; a certificate or TLS failure
            // will fail the same way every time, so it is reported at once.
            if let detail, Self.isTLSFailure(detail) { return .done(.failure(.tls(host: host, reason: detail))) }
            return failure(
                .network("the connection to \(host) failed: \(Self.describe(code, detail: detail))"), kind: kind)
        }
    }

    /// Whether libcurl's words describe a TLS or certificate failure.
    static func isTLSFailure(_ detail: String) -> Bool {
        let text = detail.lowercased()
        return ["ssl", "tls", "certificate", "handshake"].contains { text.contains($0) }
    }

    /// A failure after the request may have reached the server: retried for reads, reported as unknown for writes.
    private func failure(_ error: AppError, kind: RequestKind) -> Decision {
        kind == .idempotent
            ? .transient(retryAfter: nil, error) : .done(.failure(.requestOutcomeUnknown(error.message)))
    }

    /// A failure as it stands before any retry, for the "retrying" notice.
    static func describeTransient(_ error: AppError) -> String {
        if case .timedOut(let seconds) = error { return "Airtable did not answer within \(seconds)s" }
        return error.message
    }

    /// The path and query as sent, less the long and constant `fields[]` list.
    static func loggablePath(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let query = (components?.percentEncodedQuery ?? "").split(separator: "&").filter {
            !$0.hasPrefix("fields%5B%5D=")
        }
        return (components?.percentEncodedPath ?? url.path) + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    static func parseRetryAfter(_ value: String) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0, seconds.isFinite { return min(seconds, 3600) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return min(max(0, date.timeIntervalSinceNow), 3600)
    }

    /// Human words for a URL error code: never "NSURLErrorDomain error -1001".
    static func describe(_ code: URLError.Code, detail: String? = nil) -> String {
        switch code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "host name not found"
        case .notConnectedToInternet: "no network connection"
        case .timedOut: "timed out"
        case .networkConnectionLost: "connection reset"
        case .badServerResponse: "connection closed without an answer"
        case .cancelled: "cancelled"
        case .secureConnectionFailed: "TLS handshake failed"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: "certificate not trusted"
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid: "certificate expired or not yet valid"
        case .unknown: detail.map(Self.curlWords) ?? "transfer interrupted"
        default: "network error \(code.rawValue)"
        }
    }

    /// libcurl's description of a failed transfer, in the words a user needs.
    static func curlWords(_ detail: String) -> String {
        let text = detail.lowercased()
        if text.hasPrefix("transfer closed with") || text.contains("partial file") { return "the answer was cut off" }
        if text.contains("content unencoding") || text.contains("content decoding") {
            return "the compressed answer could not be decoded"
        }
        if text.contains("connection reset") || text.contains("recv failure") || text.contains("send failure") {
            return "connection reset"
        }
        return detail
    }
}
