#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// What an attempt's outcome means for the request: done (an answer or a failure to report), rate limited, or worth
/// sending again after a pause.
extension NetworkHelper {
    enum Decision {
        case done(Result<Data, AppError>)
        case rateLimited(retryAfter: Double?, AppError)
        case transient(retryAfter: Double?, AppError)
    }

    func classify(_ outcome: TransportOutcome, kind: RequestKind, host: String) -> Decision {
        switch outcome {
        case .answered(let answer): return classify(answer, kind: kind, host: host)
        case .failed(let failure): return classify(failure, kind: kind, host: host)
        }
    }

    private func classify(_ answer: HTTPAnswer, kind: RequestKind, host: String) -> Decision {
        let status = answer.status
        let retryAfter = answer.header("Retry-After").flatMap(Self.parseRetryAfter)
        if (200..<300).contains(status) {
            if isCutOff(answer) { return failure(.network("the answer from \(host) was cut off"), kind: kind) }
            return .done(.success(answer.body))
        }
        let error = rules.error(status, answer.body)
        switch status {
        case 429 where rules.isFinalLimit(error):
            // Waiting does not help (a monthly quota), and other processes must not be held back for it.
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

    /// Whether a 2xx body is shorter than the server said. The transport inflates compressed answers, so
    /// `Content-Length` (the compressed size) only counts for an uncompressed body; the service may send the inflated
    /// size in a header of its own. A body that stops short of `Content-Length` on the wire already fails the
    /// transfer itself.
    func isCutOff(_ answer: HTTPAnswer) -> Bool {
        if let header = rules.inflatedLengthHeader, let inflated = answer.header(header).flatMap(Int.init) {
            return answer.body.count != inflated
        }
        let coding = answer.header("Content-Encoding")?.lowercased() ?? "identity"
        guard coding == "identity", let declared = answer.header("Content-Length").flatMap(Int.init) else {
            return false
        }
        return answer.body.count != declared
    }

    func classify(_ failure: TransportFailure, kind: RequestKind, host: String) -> Decision {
        switch failure {
        case .unreachable(let words):
            // Nothing reached the server, so even a create may be sent again.
            return .transient(retryAfter: nil, .network("cannot reach \(host): \(words)"))
        case .timedOut:
            return self.failure(.timedOut(seconds: timeoutSeconds), kind: kind)
        case .cancelled:
            return .done(.failure(.interrupted))
        case .tls(let reason):
            // A certificate this machine does not trust will fail the same way every time: reported at once.
            return .done(.failure(.tls(host: host, reason: reason)))
        case .broken(let words):
            return self.failure(.network("the connection to \(host) failed: \(words)"), kind: kind)
        case .local(let words):
            return .done(.failure(.output(words)))
        case .missingLibrary(let words):
            // Not the network's doing: said once, with how to install it, and not retried.
            return .done(.failure(.missingSupport(words)))
        }
    }

    /// A failure after the request may have reached the server: retried for reads, reported as unknown for writes.
    private func failure(_ error: AppError, kind: RequestKind) -> Decision {
        kind == .idempotent
            ? .transient(retryAfter: nil, error) : .done(.failure(.requestOutcomeUnknown(error.message)))
    }

    /// A failure as it stands before any retry, for the "retrying" notice.
    func describeTransient(_ error: AppError) -> String {
        if case .timedOut(let seconds) = error { return "\(rules.serviceName) did not answer within \(seconds)s" }
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
}
