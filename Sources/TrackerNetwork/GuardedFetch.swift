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
import CCurl
import TrackerModel

/// A GET of a document a stranger names (a client's metadata document, whose URL is its client id), with the bounds
/// that keep serve from being made to reach inside its own network: https only; the host resolved first and refused
/// when any address it has is loopback, private, link-local, shared or a cloud's metadata address; then connected at
/// the address checked (no second DNS answer, no proxy), no redirect followed, 5 seconds, 64 KiB.
public enum GuardedFetch {
    /// What was fetched: the status, the headers by lower-cased name, the body.
    public struct Fetched: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
    }

    /// The URL's parts a fetch needs, or why it is not one to fetch: https, a host, no userinfo, a path, no fragment.
    public static func target(_ url: String) -> Result<(host: String, port: Int), AppError> {
        func refused(_ why: String) -> Result<(host: String, port: Int), AppError> {
            .failure(.usage(why, command: nil))
        }
        guard url.count <= 2000, url.lowercased().hasPrefix("https://") else { return refused("not an https:// URL") }
        let rest = url.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let path = rest.dropFirst(authority.count)
        guard !authority.contains("@"), !url.contains("#"), path.count > 1, path.hasPrefix("/") else {
            return refused("the URL needs a host and a path, and no user or fragment")
        }
        var host = String(authority)
        var port = 443
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return refused("the URL's host is not one") }
            let after = host[host.index(after: end)...]
            if after.hasPrefix(":") {
                guard let given = Int(after.dropFirst()) else { return refused("bad port") }; port = given
            }
            host = String(host[host.index(after: host.startIndex)..<end])
        } else if let colon = host.lastIndex(of: ":") {
            guard let given = Int(host[host.index(after: colon)...]) else { return refused("bad port") }
            port = given
            host = String(host[..<colon])
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return refused("the URL's host is not one") }
        return .success((host.lowercased(), port))
    }

    /// Fetches `url` within the bounds; `resolve` gives a host's addresses (the system's resolver unless a test says).
    public static func fetch(
        _ url: String, timeout: Double = 5, limit: Int = 64 << 10,
        resolve: (String) -> [String] = GuardedFetch.addresses
    ) -> Result<Fetched, AppError> {
        let host: String, port: Int
        switch target(url) {
        case .success(let found): (host, port) = found
        case .failure(let error): return .failure(error)
        }
        let addresses = resolve(host)
        guard let first = addresses.first else { return .failure(.network("\(host) could not be resolved")) }
        if let inside = addresses.first(where: { !isPublic($0) }) {
            return .failure(.network("\(host) resolves to \(inside), an address inside a network: not fetched"))
        }
        guard let handle = tracker_curl_handle_new() else {
            return .failure(.missingSupport("libcurl could not be loaded"))
        }
        defer { tracker_curl_handle_free(handle) }
        let pinned = "\(host):\(port):" + (first.contains(":") ? "[\(first)]" : first)
        return url.withCString { urlText in
            "GET".withCString { method in
                pinned.withCString { pin in
                    "Accept: application/json".withCString { accept in
                        var headers: [UnsafePointer<CChar>?] = [accept]
                        return headers.withUnsafeMutableBufferPointer { list in
                            var request = tracker_curl_request()
                            request.url = urlText
                            request.method = method
                            request.headers = UnsafePointer(list.baseAddress)
                            request.header_count = 1
                            request.timeout_ms = Int(timeout * 1000)
                            request.fresh_connection = 1
                            request.body_fd = -1
                            request.pinned = pin
                            request.max_body = Int64(limit)
                            var response = tracker_curl_response()
                            let code = tracker_curl_perform(handle, &request, &response)
                            defer { tracker_curl_response_free(&response) }
                            guard code == 0 else {
                                let words = withUnsafeBytes(of: response.error) {
                                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                                }
                                return .failure(
                                    .network(code == 63 ? "the document is longer than \(limit / 1024) KiB" : words))
                            }
                            let head = response.header_block.map { String(cString: $0) } ?? ""
                            var fields: [String: String] = [:]
                            for line in head.split(separator: "\r\n").dropFirst() {
                                guard let colon = line.firstIndex(of: ":") else { continue }
                                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                                    .trimmingWhitespace()
                            }
                            let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
                            return .success(Fetched(status: Int(response.status), headers: fields, body: body))
                        }
                    }
                }
            }
        }
    }

    /// Every address the system's resolver gives `host` (a numeric address is itself), as text.
    public static func addresses(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &found) == 0 else { return [] }
        defer { freeaddrinfo(found) }
        var addresses: [String] = []
        var next = found
        while let entry = next {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if entry.pointee.ai_family == AF_INET {
                entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    var address = $0.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                }
            } else if entry.pointee.ai_family == AF_INET6 {
                entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    var address = $0.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                }
            }
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !address.isEmpty && !addresses.contains(address) { addresses.append(address) }
            next = entry.pointee.ai_next
        }
        return addresses
    }

    /// Whether `address` (IPv4 or IPv6 text) is one on the public internet: not unspecified, loopback, private
    /// (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10), link-local (169.254/16, fe80::/10, which holds the
    /// clouds' metadata address 169.254.169.254), multicast or reserved; an IPv4 address inside IPv6 is judged as IPv4.
    public static func isPublic(_ address: String) -> Bool {
        var four = in_addr()
        if inet_pton(AF_INET, address, &four) == 1 {
            return isPublic(four: withUnsafeBytes(of: four) { Array($0) })
        }
        var six = in6_addr()
        guard inet_pton(AF_INET6, address, &six) == 1 else { return false }
        let bytes = withUnsafeBytes(of: six) { Array($0) }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated): the IPv4 address decides.
        if bytes[0..<10].allSatisfy({ $0 == 0 })
            && ((bytes[10] == 0xff && bytes[11] == 0xff) || (bytes[10] == 0 && bytes[11] == 0))
        {
            if bytes[10] == 0 && bytes[0..<16].allSatisfy({ $0 == 0 }) { return false }  // ::
            if bytes[10] == 0 && bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return false }  // ::1
            return isPublic(four: Array(bytes[12..<16]))
        }
        if bytes[0] & 0xfe == 0xfc { return false }  // fc00::/7, unique local (AWS's fd00:ec2::254 among them)
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }  // fe80::/10, link-local
        if bytes[0] == 0xff { return false }  // multicast
        // 2001:db8::/32, documentation.
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8 { return false }
        if bytes[0] == 0x00 { return false }  // ::/8 reserved, the rest of it
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return false }  // 6to4: an IPv4 address of any kind inside
        return true
    }

    private static func isPublic(four bytes: [UInt8]) -> Bool {
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return false  // this network, private, loopback
        case 100 where b & 0xc0 == 64: return false  // 100.64/10, shared (carrier-grade NAT)
        case 169 where b == 254: return false  // link-local, the clouds' metadata address
        case 172 where b & 0xf0 == 16: return false  // 172.16/12
        case 192 where b == 168: return false  // 192.168/16
        case 192 where b == 0 && bytes[2] == 0: return false  // 192.0.0/24, protocol assignments
        case 198 where b & 0xfe == 18: return false  // 198.18/15, benchmarking
        case 224...255: return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}
