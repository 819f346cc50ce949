import FakeAirtable
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// serve's sign-in end to end: the built binary, the fake's Airtable OAuth, several serves as separate machines
/// sharing one real redis-server, a restart, a person's Airtable token that expires under them.
final class ServeSignInTests: FakeAirtableTestCase {
    static let aliceID = "usrALICE000000001"
    private var redis: RedisServer?

    override func tearDown() {
        redis?.stop()
        super.tearDown()
    }

    /// The fake with OAuth whose access tokens live `accessSeconds`, Alice one of its people.
    private func startAirtable(accessSeconds: Double = 3600) throws {
        var options = FakeAirtable.Options()
        options.persons = ["patFAKEalice00000.not-used-as-a-bearer": Self.aliceID]
        options.emails = [Self.aliceID: "alice@example.com"]
        var integration = FakeOAuthIntegration()
        integration.accessSeconds = accessSeconds
        options.oauth = integration
        try startFake(options: options)
    }

    private func machine(redis: RedisServer?) throws -> TrackerProcess {
        let shared = redis.map { #""redis": "\#($0.url())", "# } ?? ""
        return try configuredTracker(shared + ServeSignInClient.serveSetting(fake))
    }

    private static func listing(_ id: Int) -> [String: Any] {
        [
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": [
                "name": "list_projects", "arguments": ["limit": 1],
                "_meta": [
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": [String: Any](),
                ],
            ],
        ]
    }

    private func call(_ serve: ServeProcess, _ token: String) -> RawHTTP { Self.call(serve.port, token) }

    private static func call(_ port: Int, _ token: String) -> RawHTTP {
        RawHTTP.rpc(port: port, listing(1), token: token)
    }

    /// Two serves behind one proxy share the grants in Redis: Alice signs in at one and is known at the other; her
    /// Airtable token expires and calls at both at once refresh it once (a second use of Airtable's single-use
    /// refresh token would revoke her grant); a revocation at one holds at the other; Redis holds no token (broken by
    /// a refresh outside the lock: two refreshes, the chain revoked, calls failing).
    func testTwoServesShareGrantsAndRefreshAnExpiringAirtableTokenOnce() throws {
        let redis = try RedisServer()
        self.redis = redis
        try startAirtable(accessSeconds: 4)
        let first = try ServeProcess(try machine(redis: redis))
        let second = try ServeProcess(try machine(redis: redis))
        let alice = try ServeSignInClient(servePort: first.port).signIn(as: Self.aliceID)
        XCTAssertEqual(call(second, alice.access).status, 200, "the other serve does not know Alice's sign-in")
        // Past the token's 4 s (however long the sign-in took, the calls below come after its end), then the burst:
        // the refreshes are counted from here, so a slow machine's earlier refresh does not count against it.
        usleep(4_500_000)
        let refreshedBefore = fake.oauthExchanges.filter { $0.grantType == "refresh_token" }.count
        let answers = Locked([Int]())
        let group = DispatchGroup()
        let token = alice.access
        for port in [first.port, second.port, first.port, second.port, first.port, second.port] {
            group.enter()
            DispatchQueue.global().async {
                let status = Self.call(port, token).status
                answers.withLock { $0.append(status) }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(answers.withLock { $0 }, Array(repeating: 200, count: 6), first.stderr + second.stderr)
        let refreshes = fake.oauthExchanges.filter { $0.grantType == "refresh_token" }.dropFirst(refreshedBefore)
        XCTAssertEqual(refreshes.count, 1, "\(refreshes)")
        XCTAssertEqual(refreshes.first?.granted, true)
        // Reads come from serve's copy; the sign-in's one read (the grant reaches the base) was Alice's own.
        XCTAssertEqual(fake.recordLog.filter { $0.user == Self.aliceID }.count, 1)
        // Nothing in Redis reveals a token: serve's own or Airtable's.
        let kept = try redis.keys().map { key in key.key + " " + ((try? redis.cli(["GET", key.key])) ?? "") }
            .joined(separator: "\n")
        XCTAssertFalse(kept.isEmpty)
        for token in fake.oauthTokensIssued + [alice.access, alice.refresh] {
            XCTAssertFalse(kept.contains(token), "a token at rest in Redis")
        }
        // Revoked at one serve: refused at the other at once, saying the token is no longer good.
        let revoked = RawHTTP.request(
            port: first.port, path: "/revoke", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("token=\(alice.refresh)".utf8))
        XCTAssertEqual(revoked.status, 200)
        let after = call(second, alice.access)
        XCTAssertEqual(after.status, 401)
        XCTAssertTrue(after.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
        XCTAssertEqual(first.terminate(), 0)
        XCTAssertEqual(second.terminate(), 0)
    }

    /// Without Redis, grants are kept in a 0600 file: a restarted serve signs nobody out, and the file holds no token.
    /// People signing in one after another at the rate limit's floor: Airtable's grant page is the web app a browser
    /// opens, not the API, so only serve's own requests count in the base's second and none is refused (broken by
    /// counting the page, as the fake once did: a 429 held a sign-in past its client's patience).
    func testSignInsBackToBackAtTheFloorAreNeverRateLimited() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.persons = ["patFAKEalice00000.not-used-as-a-bearer": Self.aliceID]
        options.oauth = FakeOAuthIntegration()
        try startFake(options: options)
        let serve = try ServeProcess(try machine(redis: nil))
        for index in 1...6 {
            let person = String(format: "usrPERSON%08d", index)
            let tokens = try ServeSignInClient(servePort: serve.port).signIn(as: person)
            XCTAssertEqual(call(serve, tokens.access).status, 200)
        }
        XCTAssertEqual(fake.log.filter { $0.status == 429 }.map(\.path), [])
        XCTAssertEqual(serve.terminate(), 0)
    }

    func testARestartedServeSignsNobodyOutAndItsFileRevealsNoToken() throws {
        try startAirtable()
        let host = try machine(redis: nil)
        let serve = try ServeProcess(host)
        let alice = try ServeSignInClient(servePort: serve.port).signIn(as: Self.aliceID)
        XCTAssertEqual(call(serve, alice.access).status, 200)
        XCTAssertEqual(serve.terminate(), 0)
        let again = try ServeProcess(host)
        XCTAssertEqual(call(again, alice.access).status, 200, again.stderr)
        let files = FileManager.default.enumerator(atPath: host.runtimeDirectory)?.compactMap { $0 as? String } ?? []
        let store = try XCTUnwrap(files.first { $0.hasSuffix("serve-sign-in.json") }, "\(files)")
        let path = host.runtimeDirectory + "/" + store
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for token in fake.oauthTokensIssued + [alice.access, alice.refresh] {
            XCTAssertFalse(text.contains(token), "a token at rest in the file")
        }
        XCTAssertEqual(again.terminate(), 0)
    }

    /// A person who removes the integration in Airtable: the refresh is refused, serve ends the grant, and the client
    /// is told `invalid_token` (to sign in again), never a loop of refreshes.
    func testAnAirtableGrantEndedEndsTheSignInWithoutALoop() throws {
        try startAirtable(accessSeconds: 1)
        let serve = try ServeProcess(try machine(redis: nil))
        let alice = try ServeSignInClient(servePort: serve.port).signIn(as: Self.aliceID)
        fake.revokeOAuthGrants(of: Self.aliceID)
        usleep(1_200_000)
        for _ in 0..<3 {
            let refused = call(serve, alice.access)
            XCTAssertEqual(refused.status, 401, refused.text)
            XCTAssertTrue(refused.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
        }
        XCTAssertEqual(fake.oauthExchanges.filter { $0.grantType == "refresh_token" }.count, 1, "asked once")
        XCTAssertEqual(serve.terminate(), 0)
    }

    /// The operator lists who is signed in (`serve grants`, with `--json`) and ends a person's grants (`--person`): the
    /// running serve refuses their token at its next call (broken by a serve that keeps its first reading of the file).
    func testTheOperatorListsAndRevokesAPersonsGrants() throws {
        try startAirtable()
        let host = try machine(redis: nil)
        let serve = try ServeProcess(host)
        let alice = try ServeSignInClient(servePort: serve.port).signIn(as: Self.aliceID, clientName: "Alice's <agent>")
        XCTAssertEqual(call(serve, alice.access).status, 200)
        let listed = try host.run(["serve", "grants", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let grants = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(grants.count, 1)
        XCTAssertEqual(grants.first?["user"] as? String, Self.aliceID)
        XCTAssertEqual(grants.first?["email"] as? String, "alice@example.com")
        XCTAssertEqual(grants.first?["client"] as? String, alice.client)
        XCTAssertEqual(grants.first?["clientName"] as? String, "Alice's <agent>")
        XCTAssertEqual(
            Set(grants.first?.keys.map { $0 } ?? []),
            ["id", "user", "email", "client", "clientName", "created", "lastUsed"])
        XCTAssertFalse(listed.stdout.contains(alice.access) || listed.stdout.contains(alice.refresh))
        let revoked = try host.run(["serve", "grants", "--person", "ALICE@example.com"])
        XCTAssertEqual(revoked.status, 0, revoked.stderr)
        XCTAssertEqual(revoked.stdout, (grants.first?["id"] as? String ?? "?") + "\n")
        let refused = call(serve, alice.access)
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
        let none = try host.run(["serve", "grants", "--revoke", "grtNOPE"])
        XCTAssertEqual(none.status, 66)
        XCTAssertEqual(none.stderr, "tracker: no grant with the id grtNOPE\ntracker serve grants lists them.\n")
        XCTAssertEqual(serve.terminate(), 0)
    }

    /// People sign in through the public URL: an http:// one beyond loopback is refused before serve listens (64).
    func testAPublicURLOverHTTPBeyondLoopbackIsRefused() throws {
        try startAirtable()
        let host = try machine(redis: nil)
        let refused = try host.run(["serve", "--listen", "127.0.0.1:0", "--public-url", "http://tracker.example.com"])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(
            refused.stderr.hasPrefix(
                "tracker: serve's public URL http://tracker.example.com must be https:// (http:// only for a loopback address)"
            ),
            refused.stderr)
    }
}
