#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerNetwork
import TrackerModel

extension Resolver {
    /// `"redisPasswordCommand": ["pass", "show", "redis"]`: a program that prints the Redis's password, run without a
    /// shell as `tokenCommand` is, so the address (in a crontab, the secrets file) carries no password.
    private func passwordCommand() throws -> [String]? {
        values[.redisPasswordCommand] == nil ? nil : try command(.redisPasswordCommand, example: "redis")
    }

    /// `"redis": "redis://…"` (or TRACKER_REDIS_URL) with `"redisCA"` (or TRACKER_REDIS_CA); nil when not set.
    package func redis(_ string: (SecretsKey) throws -> String?) throws -> RedisAddress? {
        let from = { (key: SecretsKey) in
            ConfigurationLoader.environmentValue(of: key, in: environment) != nil
                ? key.environmentVariable! : "\"\(key.rawValue)\" in \(origin)"
        }
        // An empty TRACKER_REDIS_URL turns the team's Redis off for one command, whatever the file says.
        if let given = environment["TRACKER_REDIS_URL"], given.trimmingWhitespace().isEmpty { return nil }
        guard let text = try string(.redis), !text.trimmingWhitespace().isEmpty else { return nil }
        let authority = try string(.redisCA).flatMap { $0.isEmpty ? nil : $0 }
        switch RedisAddress.parse(text.trimmingWhitespace(), certificateAuthority: authority) {
        case .success(var address):
            if let command = try passwordCommand() {
                guard address.password == nil else {
                    throw AppError.configuration(
                        "\(from(.redis)) carries a password and \(origin) has \"redisPasswordCommand\"; keep one",
                        hint: nil)
                }
                address.password = try TokenCommand.run(
                    command, setting: "redisPasswordCommand", secret: "Redis's password",
                    instead: "put the password in the Redis address"
                ).get()
            }
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
