import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's `redis-server`, started by a test on a free loopback port (or TLS port, or Unix socket) and stopped after
/// it; the test is skipped, not failed, where there is no redis-server (`.ci/run` installs it).
final class RedisServer {
    let port: Int
    let directory: String
    let password: String?
    /// The certificate and key the server presents, and the CA that signed them, when it speaks TLS.
    let tls: (certificate: String, key: String, authority: String)?
    private var process: Process?

    static var binary: String? {
        ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/bin/valkey-server"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    init(password: String? = nil, tls: Bool = false) throws {
        guard Self.binary != nil else { throw XCTSkip("redis-server is not installed (apt-get install redis-server)") }
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("tracker-redis-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.password = password
        self.tls = tls ? try Self.makeCertificates(in: directory) : nil
        port = try Self.freePort()
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The address tracker is given: `redis://…`, `rediss://…`, with the password when there is one.
    func url(password given: String? = nil) -> String {
        let credentials = (given ?? password).map { ":\($0)@" } ?? ""
        return "\(tls == nil ? "redis" : "rediss")://\(credentials)127.0.0.1:\(port)"
    }

    var socketPath: String { directory + "/redis.sock" }

    func start() throws {
        var arguments = [
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory, "--unixsocket", socketPath,
            "--unixsocketperm", "700",
        ]
        if let tls {
            arguments += [
                "--port", "0", "--tls-port", "\(port)", "--tls-cert-file", tls.certificate, "--tls-key-file", tls.key,
                "--tls-ca-cert-file", tls.authority, "--tls-auth-clients", "no",
            ]
        } else {
            arguments += ["--port", "\(port)"]
        }
        if let password { arguments += ["--requirepass", password] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary!)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        self.process = process
        // Ready when the socket answers PING.
        for _ in 0..<100 {
            if (try? cli(["PING"])) == "PONG" { return }
            usleep(20_000)
        }
        XCTFail("redis-server did not start on port \(port)")
    }

    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
    }

    /// One command through `redis-cli` on the Unix socket (no TLS needed); its output, trimmed.
    @discardableResult
    func cli(_ words: [String]) throws -> String {
        var arguments = ["-s", socketPath, "--no-auth-warning"]
        if let password { arguments += ["-a", password] }
        let (status, text) = try runProgram("/usr/bin/redis-cli", arguments + words)
        guard status == 0 else { throw XCTSkip("redis-cli failed: \(text)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every key and its time to live in milliseconds.
    func keys() throws -> [(key: String, ttl: Int)] {
        try cli(["--scan"]).split(separator: "\n").map(String.init).map { key in
            (key, Int(try cli(["PTTL", key])) ?? -3)
        }
    }

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw XCTSkip("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A CA made for this test, and a certificate for 127.0.0.1 that it signed.
    static func makeCertificates(in directory: String) throws -> (String, String, String) {
        let ca = directory + "/ca.pem", caKey = directory + "/ca-key.pem"
        let key = directory + "/key.pem", request = directory + "/req.pem", certificate = directory + "/cert.pem"
        let extensions = directory + "/ext.cnf"
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: extensions, atomically: false, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca, "-days", "1", "-subj",
                "/CN=tracker test CA",
            ],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", certificate,
                "-days", "1", "-extfile", extensions,
            ],
        ]
        for step in steps {
            let (status, text) = try runProgram("/usr/bin/openssl", step)
            guard status == 0 else { throw XCTSkip("openssl could not make a certificate: \(text)") }
        }
        return (certificate, key, ca)
    }
}
