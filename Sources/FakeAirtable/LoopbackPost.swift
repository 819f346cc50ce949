import TrackerHTTP

/// A POST to an `http://127.0.0.1:PORT/path` URL: how the fake pings a notification URL.
enum LoopbackPost {
    /// The status answered, 0 when the URL is not a loopback `http://` one or nothing came back within 5 s.
    static func send(_ url: String, headers: [String: String], body: [UInt8]) -> Int {
        guard url.hasPrefix("http://127.0.0.1:") else { return 0 }
        let rest = url.dropFirst("http://127.0.0.1:".count)
        let portText = rest.prefix { $0.isNumber }
        guard let port = Int(portText), let connection = LoopbackConnection(port: port, timeout: 5) else { return 0 }
        let path = rest.dropFirst(portText.count).isEmpty ? "/" : String(rest.dropFirst(portText.count))
        connection.send(
            LoopbackConnection.head(
                "POST", path, port: port, headers: headers, bodyLength: body.count, closing: true) + body)
        return connection.readAnswer().status
    }
}
