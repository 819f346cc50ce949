import Foundation

/// `openssl s_server` with a certificate nobody trusts, on a free loopback port.
public struct TLSServer {
    let process: Process
    /// The loopback port it accepts on.
    public let port: Int
    let directory: String
    /// What the server sends its next client, written once it accepts connections (nil: it answers HTTP).
    let input: Pipe?

    /// The PEM file of the certificate it presents, for a client told to trust it.
    public var certificatePath: String { directory + "/cert.pem" }

    /// Starts a server, or nil when openssl is not there or no port could be had. With `sending`, the server sends
    /// those bytes to the first client after the handshake (one TLS record up to 16 KiB) instead of answering HTTP.
    public static func start(sending: [UInt8]? = nil) throws -> TLSServer? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tracker-tls-\(UUID().uuidString)"
        )
        .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/key.pem", "-out",
            directory + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        for _ in 0..<20 {
            let port = Int.random(in: 20_000..<60_000)
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            server.arguments =
                [
                    "s_server", "-accept", "127.0.0.1:\(port)", "-cert", directory + "/cert.pem", "-key",
                    directory + "/key.pem",
                ] + (sending == nil ? ["-www", "-quiet"] : [])
            let errors = Pipe()
            let input = sending.map { _ in Pipe() }
            let output = Pipe()
            let accepting = DispatchSemaphore(value: 0)
            if let input {
                server.standardInput = input
                server.standardOutput = output
                // It says ACCEPT when it listens; what follows is drained so it never blocks on a full pipe.
                Thread.detachNewThread {
                    var seen = ""
                    while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
                        if !seen.contains("ACCEPT") {
                            seen += String(decoding: data, as: UTF8.self)
                            if seen.contains("ACCEPT") { accepting.signal() }
                        }
                    }
                }
            } else {
                server.standardOutput = FileHandle.nullDevice
            }
            server.standardError = errors
            try server.run()
            if let input, let sending {
                // Not probed by connecting: the probe would be the client that gets the bytes.
                if accepting.wait(timeout: .now() + 2.5) == .success, server.isRunning {
                    input.fileHandleForWriting.write(Data(sending))
                    return TLSServer(process: server, port: port, directory: directory, input: input)
                }
            }
            // Ready once it accepts a connection; gone at once if the port was taken.
            for _ in 0..<50 where server.isRunning && sending == nil {
                if canConnect(port: port) {
                    return TLSServer(process: server, port: port, directory: directory, input: nil)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            if server.isRunning { server.terminate() }
        }
        return nil
    }

    /// Stops the server and removes its certificate.
    public func stop() {
        // SIGKILL, not terminate(): a server started from a thread that blocks SIGTERM (Swift Testing runs tests on
        // dispatch threads) inherits the block and would never exit.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
