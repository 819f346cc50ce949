import Foundation
@testable import TrackerNetwork

/// A canned answer, or a transport failure, for one request.
enum StubAnswer: Sendable {
    case http(Int, body: String, headers: [String: String] = [:])
    case failure(TransportFailure)
    /// A failure in libcurl's words, as Linux reports them.
    case curl(String)
}

/// Answers requests from canned answers instead of a network: the unit tests' transport. Each test gets its own
/// host, so parallel tests never see each other's stubs.
struct StubTransport: HTTPTransport {
    /// What one stub host answers and what it was asked.
    final class Host: @unchecked Sendable {
        let name = UUID().uuidString.lowercased() + ".tracker.test"
        private let lock = NSLock()
        private var answers: [StubAnswer]
        /// Answers for `/v0/meta/` requests, which may go out beside others in any order; nil: they take their turn.
        private var metaAnswers: [StubAnswer]?
        private let fallback: StubAnswer
        /// Answers given every time to a request whose path ends so (reads that go out beside others in any order).
        private let routes: [String: StubAnswer]
        private var seen: [HTTPRequest] = []

        init(answers: [StubAnswer], meta: [StubAnswer]? = nil, fallback: StubAnswer, routes: [String: StubAnswer] = [:])
        {
            self.answers = answers
            self.metaAnswers = meta
            self.fallback = fallback
            self.routes = routes
        }

        /// The requests received so far, bodies included.
        var requests: [HTTPRequest] {
            lock.lock()
            defer { lock.unlock() }
            return seen
        }

        func answer(_ request: HTTPRequest) -> StubAnswer {
            lock.lock()
            defer { lock.unlock() }
            seen.append(request)
            if let route = routes.first(where: { request.url.path.hasSuffix($0.key) }) { return route.value }
            if request.url.path.hasPrefix("/v0/meta/"), let meta = metaAnswers {
                guard !meta.isEmpty else { return fallback }
                return metaAnswers!.removeFirst()
            }
            return answers.isEmpty ? fallback : answers.removeFirst()
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var hosts: [String: Host] = [:]

    /// Registers a host that answers `answers` in order, then `fallback` forever.
    static func host(
        _ answers: [StubAnswer], meta: [StubAnswer]? = nil, fallback: StubAnswer = .http(500, body: "{}"),
        routes: [String: StubAnswer] = [:]
    ) -> Host {
        let host = Host(answers: answers, meta: meta, fallback: fallback, routes: routes)
        lock.lock()
        hosts[host.name] = host
        lock.unlock()
        return host
    }

    private static func host(named name: String?) -> Host? {
        lock.lock()
        defer { lock.unlock() }
        return name.flatMap { hosts[$0] }
    }

    func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
        switch Self.host(named: request.url.host)?.answer(request) ?? .failure(.unreachable("host name not found")) {
        case .http(let status, let body, let headers):
            return .answered(HTTPAnswer(status: status, headers: headers, body: Data(body.utf8)))
        case .failure(let failure):
            return .failed(failure)
        case .curl(let words):
            return .failed(.fromCurl(words))
        }
    }
}
