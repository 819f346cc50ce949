#if !os(Linux)
    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif
    import TrackerSystem
    import TrackerModel

    /// Sends requests with URLSession, on macOS, where Foundation's networking is the system's own.
    ///
    /// Not on Linux: FoundationNetworking's URLSession keeps a CPU busy for as long as a request is in flight (its libcurl
    /// multi-handle timer is re-armed over and over), and linking it slows every start; `CurlTransport` sends there.
    struct URLSessionTransport: HTTPTransport {
        private let session: URLSession
        private let freshSession: (@Sendable () -> URLSession)?

        /// `freshSession` makes a session of its own for a `fresh` request; without it every request shares `session`.
        init(session: URLSession, freshSession: (@Sendable () -> URLSession)? = nil) {
            self.session = session
            self.freshSession = freshSession
        }

        /// An ephemeral session with no cache or cookies (answers may hold private data).
        static func makeSession(timeoutSeconds: Int) -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.httpCookieStorage = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            // Linux truncates this to whole seconds and treats it as an idle timeout; `send` adds a hard deadline.
            configuration.timeoutIntervalForRequest = TimeInterval(timeoutSeconds)
            return URLSession(configuration: configuration)
        }

        public func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            urlRequest.httpBody = request.body
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            let session = fresh ? freshSession?() ?? self.session : self.session
            defer { if session !== self.session { session.finishTasksAndInvalidate() } }
            return await withTaskGroup(of: TransportOutcome?.self) { group in
                group.addTask { [session] in
                    do {
                        let (data, response) = try await session.data(for: urlRequest)
                        guard let http = response as? HTTPURLResponse else {
                            return .failed(.broken("connection closed without an answer"))
                        }
                        var headers: [String: String] = [:]
                        for case let (name as String, value as String) in http.allHeaderFields { headers[name] = value }
                        return .answered(HTTPAnswer(status: http.statusCode, headers: headers, body: data))
                    } catch let error as URLError {
                        return .failed(
                            Self.failure(error.code, detail: error.userInfo[NSLocalizedDescriptionKey] as? String))
                    } catch {
                        return .failed(.broken("transfer interrupted"))
                    }
                }
                group.addTask {
                    // Real time on purpose: this guards against a server that trickles bytes past the idle timeout.
                    try? await Task.sleep(nanoseconds: UInt64((timeout + 0.5) * 1e9))
                    return Task.isCancelled ? nil : .failed(.timedOut)
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? .failed(.timedOut)
            }
        }

        /// URLError codes in the terms of `TransportFailure`. Linux reports most libcurl failures as code -1 with curl's
        /// words; macOS has a code for each (an untrusted certificate is `serverCertificateUntrusted` there).
        static func failure(_ code: URLError.Code, detail: String?) -> TransportFailure {
            switch code {
            case .cannotConnectToHost: .unreachable("connection refused")
            case .cannotFindHost, .dnsLookupFailed: .unreachable("host name not found")
            case .notConnectedToInternet: .unreachable("no network connection")
            case .timedOut: .timedOut
            case .networkConnectionLost: .broken("connection reset")
            case .badServerResponse, .zeroByteResource: .broken("connection closed without an answer")
            case .cancelled: .cancelled
            case .secureConnectionFailed: .tls(detail ?? "TLS handshake failed")
            case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
                .tls(detail ?? "certificate not trusted")
            case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
                .tls(detail ?? "certificate expired or not yet valid")
            case .clientCertificateRejected, .clientCertificateRequired: .tls(detail ?? "client certificate refused")
            case .unknown: detail.map(TransportFailure.fromCurl) ?? .broken("transfer interrupted")
            default: detail.map(TransportFailure.fromCurl) ?? .broken("network error \(code.rawValue)")
            }
        }
    }
#endif
