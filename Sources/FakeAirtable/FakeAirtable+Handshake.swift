#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FakeAirtable {
    /// The note on a connection that came through the fake's handshake.
    static let handshaken = "handshake"

    /// How a connection opens, as a client far from Airtable sees it. On loopback TCP is instant and a client sends
    /// its request the moment it connects, so it cannot see the handshakes (DNS, TCP, TLS: 100-300 ms to Airtable) a
    /// real connection waits for before its first byte leaves. A client that comes through the fake as a SOCKS5 proxy
    /// (`http_proxy=socks5://127.0.0.1:PORT`, which libcurl reads) waits for the proxy's answer, and the fake holds that
    /// answer back for `arrivalDelay.newConnection`: the handshakes made visible, so a client that connects before
    /// taking its turn is tested as it would be against Airtable. Its first request is then counted when it arrives;
    /// a client that connects directly has its first request held back instead. Nil closes the connection.
    static func opening(_ connection: Int32, handshake: Double) -> String? {
        var pending = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&pending, 1, 10_000) == 1 else { return nil }
        var first: UInt8 = 0
        guard recv(connection, &first, 1, Int32(MSG_PEEK)) == 1 else { return nil }
        // An HTTP request starts with its method's letters; SOCKS5 with its version.
        guard first == 5 else { return "" }
        // The greeting (version, how many methods, the methods): no authentication, chosen.
        guard let greeting = read(connection, 2), read(connection, Int(greeting[1])) != nil,
            write(connection, [5, 0])
        else { return nil }
        // The request (version, CONNECT, reserved, the address's kind), the address and the port: every connection
        // goes to the fake itself.
        guard let request = read(connection, 4), request[1] == 1 else { return nil }
        let length: Int
        switch request[3] {
        case 1: length = 4
        case 4: length = 16
        case 3:
            guard let named = read(connection, 1) else { return nil }
            length = Int(named[0])
        default: return nil
        }
        guard read(connection, length + 2) != nil else { return nil }
        if handshake > 0 { usleep(useconds_t(handshake * 1_000_000)) }
        return write(connection, [5, 0, 0, 1, 0, 0, 0, 0, 0, 0]) ? handshaken : nil
    }

    private static func read(_ connection: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { recv(connection, $0.baseAddress! + done, count - done, 0) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }

    private static func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(connection, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}
