import Foundation
import TrackerNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A canned answer, or a transport failure, for one request.
enum StubAnswer: Sendable {
    case http(Int, body: String, headers: [String: String] = [:])
    case failure(URLError.Code)
    /// A failure as Linux reports libcurl's: URLError -1 carrying curl's words.
    case curl(String)
}

/// Intercepts requests of a session made by `StubURLProtocol.session()`; each test gets its own host, so parallel
/// tests never see each other's stubs.
final class StubURLProtocol: URLProtocol {
    /// What one stub host answers and what it was asked.
    final class Host: @unchecked Sendable {
        let name = UUID().uuidString.lowercased() + ".tracker.test"
        private let lock = NSLock()
        private var answers: [StubAnswer]
        private let fallback: StubAnswer
        private var seen: [URLRequest] = []

        init(answers: [StubAnswer], fallback: StubAnswer) {
            self.answers = answers
            self.fallback = fallback
        }

        /// The requests received so far, bodies included.
        var requests: [URLRequest] {
            lock.lock()
            defer { lock.unlock() }
            return seen
        }

        func answer(_ request: URLRequest) -> StubAnswer {
            lock.lock()
            defer { lock.unlock() }
            seen.append(request)
            return answers.isEmpty ? fallback : answers.removeFirst()
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var hosts: [String: Host] = [:]

    /// Registers a host that answers `answers` in order, then `fallback` forever.
    static func host(_ answers: [StubAnswer], fallback: StubAnswer = .http(500, body: "{}")) -> Host {
        let host = Host(answers: answers, fallback: fallback)
        lock.lock()
        hosts[host.name] = host
        lock.unlock()
        return host
    }

    /// A session whose requests all go to the stubs.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        StubURLProtocol.lock.lock()
        let host = request.url?.host.flatMap { StubURLProtocol.hosts[$0] }
        StubURLProtocol.lock.unlock()
        var recorded = request
        if recorded.httpBody == nil, let stream = request.httpBodyStream {
            recorded.httpBody = Self.read(stream)
        }
        switch host?.answer(recorded) ?? .failure(.cannotFindHost) {
        case .http(let status, let body, let headers):
            let response = HTTPURLResponse(
                url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: Data(body.utf8))
            client?.urlProtocolDidFinishLoading(self)
        case .failure(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        case .curl(let words):
            client?.urlProtocol(
                self, didFailWithError: URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: words]))
        }
    }

    override func stopLoading() {}

    private static func read(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}
