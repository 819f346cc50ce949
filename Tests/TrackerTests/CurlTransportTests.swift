#if os(Linux)
    import Foundation
    import Testing

    @testable import FakeAirtable
    import TrackerHTTP
    import LoopbackTLS
    @testable import TrackerModel
    @_spi(Sending) @testable import TrackerNetwork
    @testable import TrackerSystem

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The transport every Linux user runs, against a real loopback server: what arrives on the wire, not a stub.
    @Suite(.timeLimit(.minutes(2)))
    struct CurlTransportTests {
        /// A loopback server answering each path its own way, and a transport to reach it.
        final class Loopback: Sendable {
            let server: HTTPServer
            let transport: CurlTransport

            init(_ answers: @escaping @Sendable (String) -> HTTPAction) throws {
                server = HTTPServer { answers($0.path) }
                try server.start()
                transport = try #require(CurlTransport(), "libcurl could not be loaded")
            }

            deinit { server.stop() }

            func send(_ path: String, fresh: Bool = false, timeout: Double = 10) async -> TransportOutcome {
                var request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
                request.setValue("gzip, deflate", forHTTPHeaderField: "Accept-Encoding")
                return await transport.send(request, fresh: fresh, timeout: timeout)
            }
        }

        static let text = Data((0..<5_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })

        func answer(_ outcome: TransportOutcome) throws -> HTTPAnswer {
            guard case .answered(let answer) = outcome else {
                Issue.record("expected an answer, got \(outcome)")
                throw CancellationError()
            }
            return answer
        }

        func failure(_ outcome: TransportOutcome) -> TransportFailure? {
            guard case .failed(let failure) = outcome else { return nil }
            return failure
        }

        @Test func aDownloadStreamsIntoTheFileAndAnUploadReportsWhatItSent() async throws {
            let big = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let loopback = try Loopback { path in
                path == "/big"
                    ? .respond(status: 200, headers: [:], body: big)
                    : .respond(status: 201, headers: [:], body: Data("{}".utf8))
            }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)").path
            let descriptor = POSIX.open(path, O_RDWR | O_CREAT, 0o600)
            defer {
                close(descriptor)
                unlink(path)
            }
            let heard = Locked<[Int64]>([])
            let request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(loopback.server.port)/big")!)
            let answer = try self.answer(
                await loopback.transport.download(request, into: descriptor, timeout: 10) { bytes in
                    heard.withLock { $0.append(bytes) }
                })
            #expect(answer.status == 200)
            #expect(answer.body.isEmpty, "the body went to the file, not to memory")
            #expect(FileManager.default.contents(atPath: path) == big)
            #expect(heard.withLock { $0.last } == Int64(big.count))

            var upload = HTTPRequest(url: URL(string: "http://127.0.0.1:\(loopback.server.port)/up")!, method: "POST")
            upload.body = big
            let sent = Locked<Int64>(0)
            upload.sendProgress = SendProgress { bytes in sent.withLock { $0 = bytes } }
            #expect(try self.answer(await loopback.transport.send(upload, fresh: true, timeout: 10)).status == 201)
            #expect(sent.withLock { $0 } == Int64(big.count))
        }

        @Test func aGzipBodyArrivesInflatedWithItsHeaders() async throws {
            let loopback = try Loopback { _ in
                .respond(
                    status: 200,
                    headers: [
                        "Content-Encoding": "gzip", "Content-Type": "application/json; charset=utf-8",
                        "airtable-uncompressed-content-length": String(FakeAirtable.recordedResponse.count),
                    ],
                    body: FakeAirtable.recordedResponseGzip)
            }
            let answer = try answer(await loopback.send("/v0/app/table"))
            #expect(answer.status == 200)
            #expect(FakeAirtable.recordedResponseGzip.count < answer.body.count)
            #expect(answer.body == FakeAirtable.recordedResponse)
            #expect(answer.header("Airtable-Uncompressed-Content-Length") == String(answer.body.count))
            #expect(answer.header("content-type") == "application/json; charset=utf-8")
        }

        @Test func aChunkedBodyWithNoLengthArrivesWhole() async throws {
            let loopback = try Loopback { _ in
                .respond(status: 200, headers: ["Transfer-Encoding": "chunked"], body: Self.text)
            }
            let answer = try answer(await loopback.send("/chunked"))
            #expect(answer.header("content-length") == nil)
            #expect(answer.body == Self.text)
        }

        @Test func aResetMidBodyIsABrokenExchangeNotAShortAnswer() async throws {
            let loopback = try Loopback { _ in .resetMidBody(status: 200, headers: [:], body: Self.text) }
            let failure = try #require(failure(await loopback.send("/reset")))
            guard case .broken = failure else {
                Issue.record("expected broken, got \(failure)")
                return
            }
        }

        @Test func aBodyCutShortOfItsLengthIsBroken() async throws {
            let loopback = try Loopback { _ in .truncate(status: 200, headers: [:], body: Self.text) }
            #expect(failure(await loopback.send("/cut")) == .broken("the answer was cut off"))
        }

        @Test func aServerThatSaysNothingTimesOutOnTime() async throws {
            let loopback = try Loopback { _ in .stall(seconds: 30) }
            let started = MonotonicClock.now()
            #expect(failure(await loopback.send("/stall", timeout: 0.5)) == .timedOut)
            // Well before the server's 30 s of silence end: the deadline ended it, whatever else the machine is doing
            // (a wall-clock bound near 0.5 s fails on a loaded machine, not on a broken deadline: a whole suite run in
            // parallel on two cores once took 8.3 s).
            #expect(MonotonicClock.now() - started < 20)
        }

        @Test func aBodyThatStopsComingTimesOutToo() async throws {
            let loopback = try Loopback { _ in .stallBody(seconds: 10, status: 200, headers: [:], body: Self.text) }
            #expect(failure(await loopback.send("/slow", timeout: 0.5)) == .timedOut)
        }

        @Test func aRefusedConnectionIsUnreachable() async throws {
            let loopback = try Loopback { _ in .respond(status: 200, headers: [:], body: Data()) }
            let port = loopback.server.port
            loopback.server.stop()
            var request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!)
            request.method = "GET"
            let failure = try #require(failure(await loopback.transport.send(request, fresh: true, timeout: 5)))
            guard case .unreachable = failure else {
                Issue.record("expected unreachable, got \(failure)")
                return
            }
        }

        @Test func anUntrustedCertificateIsRefusedAsTLS() async throws {
            let server = try #require(try TLSServer.start(), "openssl is needed for this test")
            defer { server.stop() }
            let transport = try #require(CurlTransport())
            let request = HTTPRequest(url: URL(string: "https://127.0.0.1:\(server.port)/")!)
            let failure = try #require(failure(await transport.send(request, fresh: true, timeout: 10)))
            guard case .tls(let words) = failure else {
                Issue.record("expected a TLS failure, got \(failure)")
                return
            }
            #expect(words.lowercased().contains("certificate"), "\(words)")
        }

        @Test func readsReuseTheConnectionAndWritesGetTheirOwn() async throws {
            let loopback = try Loopback { _ in .respond(status: 200, headers: [:], body: Data("ok".utf8)) }
            for fresh in [false, false, true] {
                let answer = try answer(await loopback.send("/", fresh: fresh))
                #expect(answer.body == Data("ok".utf8))
            }
            // The two reads share one connection; the write opens a second, which is closed after it.
            #expect(loopback.server.connectionsAccepted == 2)
        }

        /// The gate is asked once the connection is open and before a byte of the request leaves: the server has
        /// accepted it and read nothing. Held back, nothing is sent; let go, the request is answered on it. Asked before
        /// connecting (the turn taken first), the server would have accepted nothing yet.
        @Test(arguments: [false, true])
        func theGateIsAskedWithTheConnectionOpenAndNothingSent(letGo: Bool) async throws {
            let served = Locked(0)
            let loopback = try Loopback { _ in
                served.withLock { $0 += 1 }
                return .respond(status: 200, headers: [:], body: Data("{}".utf8))
            }
            let server = loopback.server
            let seen = Locked<(accepted: Int, served: Int)?>(nil)
            let request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(server.port)/gated")!)
            let outcome = await loopback.transport.send(request, fresh: true, timeout: 10) {
                // The kernel completes the connection before the server's thread accepts it.
                for _ in 0..<100 where server.connectionsAccepted == 0 { usleep(10_000) }
                seen.withLock { $0 = (server.connectionsAccepted, served.withLock { $0 }) }
                return letGo
            }
            let atTheGate = try #require(seen.withLock { $0 }, "the gate was not asked")
            #expect(atTheGate.accepted == 1 && atTheGate.served == 0)
            if letGo {
                #expect(try answer(outcome).status == 200)
            } else {
                #expect(failure(outcome) == .cancelled)
            }
            #expect(served.withLock { $0 } == (letGo ? 1 : 0))
        }
    }
#endif
