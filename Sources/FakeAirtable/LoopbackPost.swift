#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POST to an `http://127.0.0.1:PORT/path` URL over a socket of its own: how the fake pings a notification URL
/// (no HTTP client library here: FoundationNetworking stays unlinked).
enum LoopbackPost {
    /// The status answered, 0 when the URL is not a loopback `http://` one or nothing came back within 5 s.
    static func send(_ url: String, headers: [String: String], body: [UInt8]) -> Int {
        guard url.hasPrefix("http://127.0.0.1:") else { return 0 }
        let rest = url.dropFirst("http://127.0.0.1:".count)
        let portText = rest.prefix { $0.isNumber }
        guard let port = UInt16(portText) else { return 0 }
        let path = rest.dropFirst(portText.count).isEmpty ? "/" : String(rest.dropFirst(portText.count))
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return 0 }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return 0 }
        var bound = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let request = Array((head + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
        _ = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8](repeating: 0, count: 512)
        let count = recv(socket, &answer, answer.count, 0)
        guard count > 12 else { return 0 }
        return Int(String(decoding: answer[9..<12], as: UTF8.self)) ?? 0
    }
}
