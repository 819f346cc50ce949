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
import TrackerSystem
import TrackerModel

extension NetworkHelper {
    /// Downloads `request` (a GET carrying no token) into `descriptor`, emptied before every try, retrying what a read
    /// may retry. Not paced: the download host is not the base's API. Not recorded (docs/airtable.md "Attachments"):
    /// whether its
    /// signed addresses, which name no base and carry no token, count toward the base's 5 requests a second; nothing
    /// suggests they do, and four downloads at a time is the most tracker sends. A 429 from it is waited out like a
    /// 5xx, without holding back the base's other requests. A non-2xx
    /// answer is `.http` with its status alone (the host's bodies are not Airtable's); 403 and 410 are what an expired
    /// address gets.
    @_spi(Sending) public func download(
        _ request: HTTPRequest, into descriptor: Int32, progress: @escaping @Sendable (Int64) -> Void
    ) async -> Result<Void, AppError> {
        let started = environment.now()
        var retries = 0
        let host = request.url.host ?? "the download host"
        while true {
            guard lseek(descriptor, 0, SEEK_SET) == 0, ftruncate(descriptor, 0) == 0 else {
                return .failure(.output(POSIX.describe(errno)))
            }
            let start = environment.now()
            let outcome = await transport.download(
                request, into: descriptor, timeout: Double(timeoutSeconds), progress: progress)
            if Task.isCancelled { return .failure(.interrupted) }
            let error: AppError
            switch outcome {
            case .answered(let answer):
                environment.log?(
                    "GET \(host)\(request.url.path) \(answer.status) \(Int((environment.now() - start) * 1000))ms")
                if (200..<300).contains(answer.status) { return .success(()) }
                error = .http(status: answer.status, ServiceError(type: nil, message: nil))
                guard answer.status == 429 || answer.status >= 500 else { return .failure(error) }
            case .failed(let failure):
                environment.log?("GET \(host)\(request.url.path) \(failure.words)")
                switch classify(failure, kind: .idempotent, host: host) {
                case .done(let result): return result.map { _ in () }
                case .transient(_, let transient), .rateLimited(_, let transient): error = transient
                }
            }
            let delay = policy.transientDelay(attempt: retries, random: environment.random())
            guard retries < policy.maxTransientRetries, environment.now() - started + delay <= policy.budgetSeconds
            else {
                return .failure(error)
            }
            retries += 1
            notifyOnce("\(describeTransient(error)); retrying…")
            await environment.sleep(delay)
            if Task.isCancelled { return .failure(.interrupted) }
        }
    }
}
