/// Where a team's Redis (or Valkey) is, as `"redis"` or `TRACKER_REDIS_URL` names it:
/// `redis://[[user]:password@]host[:port][/db]`, `rediss://…` for TLS, or `unix://[[user]:password@]/path?db=N`.
public struct RedisAddress: Hashable, Sendable {
    public enum Place: Hashable, Sendable {
        case tcp(host: String, port: Int, tls: Bool)
        case unix(path: String)
    }

    public var place: Place
    public var user: String?
    public var password: String?
    public var database: Int
    /// A CA file to trust instead of the system's (`"redisCA"`, `TRACKER_REDIS_CA`).
    public var certificateAuthority: String?

    /// The address as it may be shown: scheme, host and port, never the user or the password.
    public var display: String {
        switch place {
        case .tcp(let host, let port, let tls):
            "\(tls ? "rediss" : "redis")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .unix(let path): "unix://\(path)"
        }
    }

    /// What libcurl's connect-only mode is given: a URL whose scheme says whether TLS is wanted, and a socket path.
    var curlTarget: (url: String, unixPath: String?) {
        switch place {
        case .tcp(let host, let port, let tls):
            ("\(tls ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)/", nil)
        case .unix(let path): ("http://localhost/", path)
        }
    }

    /// Where a plain socket may reach this Redis: without TLS, at its host (taken only when it is an IPv4 or IPv6
    /// literal: the socket resolves nothing) or a Unix socket's path; nil for TLS (libcurl's connect-only mode).
    var plainSocketTarget: (host: String?, port: Int, path: String?)? {
        switch place {
        case .tcp(let host, let port, let tls): tls ? nil : (host, port, nil)
        case .unix(let path): (nil, 0, path)
        }
    }

    /// Why a `"redis"` value is not an address; the value itself is never repeated (it may hold a password).
    public struct Invalid: Error, Equatable {
        public var reason: String
    }

    /// Reads an address; `certificateAuthority` is kept beside it.
    public static func parse(_ text: String, certificateAuthority: String? = nil) -> Result<RedisAddress, Invalid> {
        let schemes = ["redis://", "rediss://", "unix://"]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else {
            return .failure(Invalid(reason: "it must start with redis://, rediss:// or unix://"))
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var user: String?
        var password: String?
        // The password may hold '@' and '/' only percent-encoded; the last '@' before the path ends the credentials.
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = percentDecoded(credentials[..<colon])
                user = name.isEmpty ? nil : name
                password = percentDecoded(credentials[credentials.index(after: colon)...])
            } else {
                // `redis://secret@host` is how many clients take a password alone.
                password = percentDecoded(credentials)
            }
        }
        var database = 0
        for pair in query.split(separator: "&") where pair.hasPrefix("db=") {
            guard let number = Int(pair.dropFirst(3)), number >= 0 else {
                return .failure(Invalid(reason: "its db must be a number"))
            }
            database = number
        }
        let place: Place
        if scheme == "unix://" {
            guard rest.hasPrefix("/") else {
                return .failure(Invalid(reason: "a unix:// address needs an absolute path"))
            }
            place = .unix(path: String(rest))
        } else {
            var hostPort = rest
            if let slash = rest.firstIndex(of: "/") {
                hostPort = rest[..<slash]
                let path = rest[rest.index(after: slash)...]
                if !path.isEmpty {
                    guard let number = Int(path), number >= 0 else {
                        return .failure(Invalid(reason: "its path must be a database number, like /0"))
                    }
                    database = number
                }
            }
            var host = String(hostPort)
            var port = 6379
            if hostPort.hasPrefix("[") {
                guard let close = hostPort.firstIndex(of: "]") else {
                    return .failure(Invalid(reason: "its IPv6 host has no closing ]"))
                }
                host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
                let after = hostPort[hostPort.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let number = Int(after.dropFirst()), (1...65535).contains(number) else {
                        return .failure(Invalid(reason: "its port must be a number from 1 to 65535"))
                    }
                    port = number
                }
            } else if let colon = hostPort.lastIndex(of: ":") {
                host = String(hostPort[..<colon])
                guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(number) else {
                    return .failure(Invalid(reason: "its port must be a number from 1 to 65535"))
                }
                port = number
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:".contains($0) }) else {
                return .failure(Invalid(reason: "it names no host"))
            }
            place = .tcp(host: host, port: port, tls: scheme == "rediss://")
        }
        return .success(
            RedisAddress(
                place: place, user: user, password: password, database: database,
                certificateAuthority: certificateAuthority))
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
