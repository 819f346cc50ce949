#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerNetwork
import TrackerModel

extension Resolver {
    /// `"redis": "redis://…"` (or TRACKER_REDIS_URL) with `"redisCA"` (or TRACKER_REDIS_CA); nil when not set.
    func redis(_ string: (SecretsKey) throws -> String?) throws -> RedisAddress? {
        let from = { (key: SecretsKey) in
            ConfigurationLoader.environmentValue(of: key, in: environment) != nil
                ? key.environmentVariable! : "\"\(key.rawValue)\" in \(origin)"
        }
        guard let text = try string(.redis), !text.trimmingWhitespace().isEmpty else { return nil }
        let authority = try string(.redisCA).flatMap { $0.isEmpty ? nil : $0 }
        switch RedisAddress.parse(text.trimmingWhitespace(), certificateAuthority: authority) {
        case .success(let address):
            if let authority, access(authority, R_OK) != 0 {
                throw AppError.configuration(
                    "\(from(.redisCA)) names \(authority), which cannot be read: \(String(cString: strerror(errno)))",
                    hint: "Name a PEM file of the CA that signed the Redis's certificate.")
            }
            return address
        case .failure(let invalid):
            // The value is not repeated: it may hold a password.
            throw AppError.configuration(
                "\(from(.redis)) is not a Redis address: \(invalid.reason)",
                hint:
                    "Write it as redis://[[user]:password@]host[:port][/db], rediss://… for TLS, or unix:///path/redis.sock."
            )
        }
    }
}
