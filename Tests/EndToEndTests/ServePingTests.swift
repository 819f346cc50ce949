import FakeAirtable
import Foundation
import XCTest

/// `tracker serve --public-url` keeps a webhook that pings it, and the team's copy is refreshed on pings instead of a
/// timer: a quiet base costs nothing, a change reaches the readers within a ping's round, a ping that fails its MAC
/// changes nothing, and a replayed one costs at most one payloads read.
final class ServePingTests: TeamCopyTestCase {
    /// The payloads reads of the copy's poller since log entry `index`.
    private func payloadReads(since index: Int) -> Int {
        fake.recordLog.dropFirst(index).filter { $0.path.hasSuffix("/payloads") }.count
    }

    /// On a base of its own: serve keeping the doorbell (its public URL on loopback) and an assistant's server reading
    /// the team's copy, the doorbell said in Redis.
    private func serveWithPingsAndAReader() throws -> (serve: ServeProcess, port: Int, reader: MCPSession) {
        try startBase()
        let port = try RedisServer.freePort()
        let serve = try ServeProcess(
            try teamMachine(every: 4),
            arguments: ["--listen", "127.0.0.1:\(port)", "--public-url", "http://127.0.0.1:\(port)"])
        let reader = try server(try teamMachine(every: 4))
        XCTAssertNotNil(name("rec00000000000003", on: reader))
        XCTAssertTrue(
            try waitFor(10) { try redis.keys().contains { $0.key.contains(":doorbell:") } },
            "no doorbell: " + serve.stderr)
        return (serve, port, reader)
    }

    func testPingsRefreshTheCopyAndAQuietBaseCostsNothing() throws {
        let (serve, port, reader) = try serveWithPingsAndAReader()
        // A round or two may still be under way: then the base is quiet.
        usleep(2_000_000)
        let quiet = fake.recordLog.count
        usleep(9_000_000)
        XCTAssertEqual(
            fake.recordLog.count - quiet, 0, "a quiet base was polled: \(fake.recordLog.dropFirst(quiet).map(\.path))")
        // A change made in Airtable (no team's copy there): pinged, and read by the poller at once.
        let before = fake.recordLog.count
        let renamed = try tracker([:]).run(["update", "rec00000000000003", "--name", "Pinged name"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        let seconds = self.seconds(until: "Pinged name", of: "rec00000000000003", on: reader, within: 10)
        XCTAssertNotNil(seconds, "the change never came: " + serve.stderr)
        XCTAssertLessThan(seconds ?? 99, 3.5, "not by the ping (the poller's own round is an hour away)")
        XCTAssertEqual(fake.pingsSent.count, 1)
        XCTAssertGreaterThanOrEqual(payloadReads(since: before), 1)
        // A ping whose MAC does not match: 401, and nothing read.
        let forged = RawHTTP.request(
            port: port, path: "/airtable/ping",
            headers: [
                "Content-Type": "application/json",
                "X-Airtable-Content-MAC": "hmac-sha256=" + String(repeating: "0", count: 64),
            ],
            body: Data(fake.pingsSent[0].body))
        XCTAssertEqual(forged.status, 401)
        usleep(1_500_000)
        let afterForged = fake.recordLog.count
        // The real ping sent again (a replay): one payloads read at most, then quiet.
        XCTAssertEqual(fake.pingsSent[0].send(), 204)
        usleep(3_000_000)
        XCTAssertLessThanOrEqual(payloadReads(since: afterForged), 1)
        // A person's edit in Airtable's app: no Web API request of its own, pinged and read like any change.
        let beforeApp = fake.log.count
        XCTAssertTrue(fake.editInApp(projectNamed: "Pinged name", setting: ["Name": "Edited in the app"]))
        XCTAssertNotNil(
            self.seconds(until: "Edited in the app", of: "rec00000000000003", on: reader, within: 10), serve.stderr)
        XCTAssertEqual(fake.pingsSent.count, 2)
        XCTAssertFalse(fake.log.dropFirst(beforeApp).contains { $0.method == "PATCH" }, "the edit was an API request")
        XCTAssertEqual(reader.finish().status, 0, reader.stderr)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
        XCTAssertFalse(try redis.keys().contains { $0.key.contains(":doorbell:") }, "the doorbell outlived the server")
    }

    /// While pings bring the rounds (the poller's own is an hour away), a copy that a one-shot reader finds junk in,
    /// or whose header is gone from Redis, is put in again within seconds, not at the next ping or in an hour. Broken
    /// by a poller that rounds only on pings and hourly: the junk stays, and every reader reads Airtable meanwhile.
    func testAnUnsoundCopyIsPutInAgainWithoutWaitingForAPingOrTheHour() throws {
        let (serve, _, reader) = try serveWithPingsAndAReader()
        usleep(2_000_000)
        let shell = try teamMachine(every: 4)
        // Junk where a record was: a one-shot reader says so and reads Airtable; the poller puts the copy in again.
        let first = try XCTUnwrap(try headField("generation"))
        let records = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":projects") })
        _ = try redis.cli(["HSET", records, "rec00000000000003", "not a record"])
        let junk = try shell.run(["list", "--max-age", "600"])
        XCTAssertEqual(junk.status, 0, junk.stderr)
        XCTAssertTrue(junk.stderr.contains("it holds a value that is not a record"), junk.stderr)
        XCTAssertTrue(
            try waitFor(8) { try headField("generation").map { $0 != first } ?? false },
            "the distrusted copy was not put in again: " + serve.stderr + reader.stderr)
        var before = fake.recordLog.count
        let served = try shell.run(["list", "--max-age", "600"])
        XCTAssertEqual(served.stdout, junk.stdout)
        XCTAssertEqual(fake.recordLog.count - before, 0, "the copy put in again was not served")
        // The header gone (evicted, deleted): put in again too.
        let second = try XCTUnwrap(try headField("generation"))
        let head = try XCTUnwrap(try redis.keys().map(\.key).first { $0.hasSuffix(":head") })
        _ = try redis.cli(["DEL", head])
        XCTAssertTrue(
            try waitFor(8) { try headField("generation").map { $0 != second } ?? false },
            "the copy whose header was lost was not put in again: " + serve.stderr + reader.stderr)
        before = fake.recordLog.count
        XCTAssertEqual(try shell.run(["list", "--max-age", "600"]).stdout, junk.stdout)
        XCTAssertEqual(fake.recordLog.count - before, 0)
        XCTAssertEqual(reader.finish().status, 0, reader.stderr)
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    /// Without the team's copy, serve's own copy freshens on pings (and hourly), not at every call: a call after
    /// another with no ping between asks Airtable nothing, and a change pinged is in the next call (broken by a copy
    /// that reads what changed at every call: a payloads read a call).
    func testServesOwnCopyFreshensOnPingsNotOnEveryCall() throws {
        var options = FakeAirtable.Options()
        options.oauth = FakeOAuthIntegration()
        try startFake(options: options)
        let port = try RedisServer.freePort()
        // Given with a trailing slash, as people paste it: the pings' address has one slash.
        let serve = try ServeProcess(
            try configuredTracker(ServeSignInClient.serveSetting(fake)),
            arguments: ["--listen", "127.0.0.1:\(port)", "--public-url", "http://127.0.0.1:\(port)/"])
        XCTAssertTrue(
            waitFor(10) { fake.log.contains { $0.method == "POST" && $0.body.contains("notificationUrl") } },
            serve.stderr)
        usleep(300_000)
        let token = try ServeSignInClient(servePort: port).signIn(as: fake.options.user.id).access
        func names() -> [String] {
            let answer = RawHTTP.rpc(port: port, Self.modernList, token: token)
            let projects =
                ((answer.json["result"] as? [String: Any])?["structuredContent"] as? [String: Any])?[
                    "projects"] as? [[String: Any]]
            return projects?.compactMap { $0["name"] as? String } ?? []
        }
        XCTAssertEqual(names().count, 16)
        let before = fake.recordLog.count
        XCTAssertEqual(names().count, 16)
        XCTAssertEqual(fake.recordLog.count - before, 0, "a call with no ping since asked Airtable")
        let renamed = try tracker([:]).run(["update", "Coffee packaging", "--name", "Coffee, pinged"])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertTrue(waitFor(5) { serve.stderr.contains("\"path\":\"/airtable/ping\",\"status\":204") }, serve.stderr)
        XCTAssertTrue(names().contains("Coffee, pinged"))
        XCTAssertEqual(fake.pingsSent.last?.url, "http://127.0.0.1:\(port)/airtable/ping")
        XCTAssertEqual(serve.terminate(), 0, serve.stderr)
    }

    private static var modernList: [String: Any] {
        [
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": [
                "name": "list_projects", "arguments": ["limit": 50],
                "_meta": [
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": [String: Any](),
                ],
            ],
        ]
    }
}
