import FakeAirtable
import Foundation
import XCTest

/// Each fault docs/airtable.md describes, injected into the fake on the n-th request: the exit code, the message,
/// and the fake's records afterwards.
final class FaultInjectionTests: FakeAirtableTestCase {
    private func names() -> [String] {
        fake.records.compactMap { ($0["fields"] as? [String: Any])?["Name"] as? String }
    }

    /// A tracker whose secrets file sets a short timeout and retry budget, so giving up is quick.
    private func impatientTracker(timeout: Int = 1, budget: Int = 3) throws -> TrackerProcess {
        try configuredTracker(#""timeoutSeconds": \#(timeout), "retryBudgetSeconds": \#(budget)"#)
    }

    // MARK: - Rate limit

    func testA429BurstIsWaitedOutWithRetryAfter() throws {
        try startFake(options: .lockingOut(for: 1))
        // The schema remembered first: cold, its read would go out beside the listing and meet the lockout too.
        let run = tracker()
        XCTAssertEqual(try run.run(["list"]).status, 0)
        let before = fake.recordLog.count
        let limited = FakeAirtable.Fault.rateLimited(retryAfter: "1")
        fake.inject(limited, onRequest: 1)
        fake.inject(limited, onRequest: 2)
        let result = try run.run(["list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 16)
        XCTAssertEqual(result.stderr, "", "no terminal, so no waiting notice")
        let listings = Array(fake.recordLog.dropFirst(before))
        XCTAssertEqual(listings.map(\.status), [429, 429, 200])
        let gaps = zip(listings.dropFirst(), listings).map { $0.time - $1.time }
        XCTAssertTrue(gaps.allSatisfy { $0 >= 1.0 }, "\(gaps)")
    }

    func testRateLimitedPastTheBudgetExits75() throws {
        try startFake(options: .lockingOut(for: 1))
        fake.injectOnEveryRequest(.rateLimited(retryAfter: "1"))
        let result = try impatientTracker(budget: 3).run(["list"])
        assertFailure(result, status: 75, "Airtable is still rate limiting after")
        XCTAssertLessThan(result.seconds, 6)
    }

    func testAnEnforcingFakeSeesNo429FromThreeListingsStartedTogether() throws {
        var options = FakeAirtable.Options()
        options.requestsPerSecond = 5
        options.lockoutSeconds = 30
        try startFake(records: FakeAirtable.generatedProjects(count: 600), options: options)
        let shared = tracker()
        let runs = try (0..<3).map { _ in try shared.start(["list"]) }
        var outputs: [String] = []
        for (process, out, _) in runs {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            outputs.append(String(decoding: data, as: UTF8.self))
        }
        XCTAssertEqual(outputs.map { $0.split(separator: "\n").count }, [600, 600, 600])
        XCTAssertEqual(fake.recordLog.count, 18)
        XCTAssertFalse(fake.recordLog.contains { $0.status == 429 }, "\(fake.recordLog.map(\.status))")
        // No one-second window holds more than five requests.
        let times = fake.recordLog.map(\.time).sorted()
        for (index, time) in times.enumerated() {
            XCTAssertLessThanOrEqual(times[index...].prefix { $0 < time + 1 }.count, 5)
        }
    }

    // MARK: - Server errors and broken connections

    func testServerErrorsOnReadsAreRetried() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 250))
        fake.inject(.status(500, type: nil), onRequest: 1)
        fake.inject(.status(502, type: nil), onRequest: 3)
        fake.inject(
            .status(
                503, type: "RETRIABLE_ERROR",
                message:
                    "Server encountered an error while processing your request, and it is safe to retry the request",
                retryAfter: "1"), onRequest: 5)
        let result = try tracker().run(["list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Set(result.lines).count, 250)
        XCTAssertEqual(fake.recordLog.map(\.status), [500, 200, 502, 200, 503, 200])
    }

    func testAServiceThatKeepsFailingExits69() throws {
        try startFake()
        fake.injectOnEveryRequest(.status(502, type: nil))
        let result = try impatientTracker(budget: 20).run(["list"])
        assertFailure(result, status: 69, "Airtable is failing (502 Bad Gateway)")
        // With nothing remembered the schema read goes out beside the listing: each is tried once and retried five
        // times.
        XCTAssertEqual(fake.recordLog.count, 6, "one try and five retries")
        XCTAssertEqual(fake.log.count - fake.recordLog.count, 6)
    }

    func testResetsAndTruncatedBodiesOnReadsAreRetriedWithoutDuplicates() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 300))
        fake.inject(.reset, onRequest: 1)
        fake.inject(.truncatedBody, onRequest: 3)
        fake.inject(.applyThenDrop, onRequest: 5)
        let result = try tracker().run(["list", "--format", "ndjson"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 300)
        XCTAssertEqual(Set(result.lines).count, 300)
    }

    /// A body whose framing is whole but which inflates to less than `airtable-uncompressed-content-length`: only
    /// tracker's own check of that header sees the cut, and a read is then asked for again.
    func testABodyShorterThanAirtablesLengthHeaderIsReadAgain() throws {
        try assertAListingIsWhole(after: .shortInflated, requests: 2)
    }

    /// Real gzip, 5.6 KB on the wire for 41.8 KB of JSON: a client comparing Content-Length with what it read
    /// would call it cut off.
    func testARealGzipAnswerSmallerThanItsJSONIsReadWhole() throws {
        XCTAssertLessThan(FakeAirtable.recordedResponseGzip.count, FakeAirtable.recordedResponse.count / 5)
        try assertAListingIsWhole(after: .recordedCompressedPage, requests: 1)
    }

    /// A listing whose first answer comes with `fault` prints all 16 projects, having sent `requests` requests.
    private func assertAListingIsWhole(
        after fault: FakeAirtable.Fault, requests: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        try startFake()
        fake.inject(fault, onRequest: 1)
        let result = try tracker().run(["list", "--format", "ndjson"])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        XCTAssertEqual(result.lines.count, 16, file: file, line: line)
        XCTAssertEqual(fake.recordLog.count, requests, file: file, line: line)
        XCTAssertEqual(fake.recordLog.first?.encoding, "gzip", file: file, line: line)
    }

    /// Answers with no Content-Length (chunked), for a listing and for a create, whose answer also comes without
    /// Airtable's length header.
    func testChunkedAnswersWithoutAnyLengthAreReadWhole() throws {
        try startFake()
        fake.inject(.chunked, onRequest: 1)
        let listed = try tracker().run(["list", "--format", "ndjson"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.lines.count, 16)
        fake.inject(.chunked, onRequest: 1)
        let added = try tracker().run(["add", "--name", "Chunked", "--due", "2026-12-01"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stdout, (fake.records.last?["id"] as? String ?? "?") + "\n")
        XCTAssertEqual(fake.recordLog.map(\.method), ["GET", "POST"], "read once, created once")
    }

    func testConnectionRefusedExits69InWords() throws {
        try startFake()
        fake.stop()
        let result = try impatientTracker(budget: 2).run(["list"])
        assertFailure(result, status: 69, "cannot reach 127.0.0.1: connection refused")
    }

    func testAServerThatNeverAnswersEndsIn75WithinTheTimeoutAndBudget() throws {
        try startFake()
        fake.injectOnEveryRequest(.stall(seconds: 30))
        let result = try impatientTracker(timeout: 1, budget: 2).run(["list"])
        assertFailure(result, status: 75, "Airtable did not answer within 1s, even after retrying")
        XCTAssertLessThan(result.seconds, 5)
    }

    func testABodySlowerThanTheTimeoutIsRetried() throws {
        try startFake()
        fake.inject(.slowBody(seconds: 5), onRequest: 1)
        let result = try impatientTracker(timeout: 1, budget: 10).run(["list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 16)
    }

    // MARK: - Writes whose answer is lost

    func testACreateAppliedThenLostIsReportedOnce() throws {
        try startFake()
        fake.inject(.applyThenDrop, onRequest: 1)
        let result = try tracker().run(["add", "--name", "Lost answer", "--due", "2026-12-01"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(names().filter { $0 == "Lost answer" }.count, 1)
        let created = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Lost answer" }
        XCTAssertEqual(result.stdout, (created?["id"] as? String ?? "?") + "\n")
        XCTAssertEqual(fake.recordLog.map(\.method), ["POST", "GET"])
    }

    func testACreateOnAReusedConnectionThatDiesIsNotResentByLibcurl() throws {
        // libcurl re-sends a request by itself when a reused keep-alive connection dies before answering. It cannot
        // replay the body, so that second send hangs until the timeout (and one it could replay would be a second
        // project). The lookup before the create leaves such a connection, so the create must not go on it.
        try startFake()
        fake.inject(.applyThenDrop, onRequest: 2)
        let result = try tracker().run(["add", "--if-absent", "--name", "Reused", "--due", "2026-12-01"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(names().filter { $0 == "Reused" }.count, 1)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 1)
        let created = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Reused" }
        XCTAssertEqual(result.stdout, (created?["id"] as? String ?? "?") + "\n")
        XCTAssertLessThan(result.seconds, 10, "not hung in a re-send by libcurl until the 30 s timeout")
    }

    func testACreateAppliedFourSecondsAfterAOneSecondTimeoutIsFoundNotSentAgain() throws {
        try startFake()
        fake.inject(.applyLate(seconds: 5), onRequest: 1)
        let result = try impatientTracker(timeout: 1, budget: 20).run(["add", "--name", "Late", "--due", "2026-12-01"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(names().filter { $0 == "Late" }.count, 1)
        let created = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Late" }
        XCTAssertEqual(result.stdout, (created?["id"] as? String ?? "?") + "\n")
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 1)
        XCTAssertGreaterThan(result.seconds, 5, "it looked until the late create appeared")
    }

    func testACreateAppliedThenAnsweredWithGarbageIsFound() throws {
        try startFake()
        fake.inject(.applyThenGarbage, onRequest: 1)
        let result = try tracker().run(["add", "--name", "Garbled", "--due", "2026-12-01"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let created = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Garbled" }
        XCTAssertEqual(result.stdout, (created?["id"] as? String ?? "?") + "\n")
        XCTAssertEqual(names().filter { $0 == "Garbled" }.count, 1)
        XCTAssertEqual(fake.recordLog.map(\.method), ["POST", "GET"])
    }

    func testACreateThatMayStillBeAppliedEndsIn75AndTheSafeWayToFinishWorks() throws {
        try startFake()
        fake.inject(.applyLate(seconds: 5), onRequest: 1)
        let impatient = try impatientTracker(timeout: 1, budget: 3)
        let result = try impatient.run(["add", "--name", "Pending", "--due", "2026-12-01"])
        assertFailure(result, status: 75, "the answer to creating \"Pending\" was lost")
        XCTAssertTrue(result.stderr.contains("run the same command again with --if-absent"), result.stderr)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 1, "never sent twice")
        // Airtable applies it late; finishing with --if-absent then finds it instead of creating another.
        for _ in 0..<100 where !names().contains("Pending") { Thread.sleep(forTimeInterval: 0.1) }
        XCTAssertTrue(names().contains("Pending"), "the fake applied the create")
        let finish = try impatient.run(["add", "--if-absent", "--name", "Pending", "--due", "2026-12-01"])
        XCTAssertEqual(finish.status, 0, finish.stderr)
        XCTAssertEqual(names().filter { $0 == "Pending" }.count, 1)
        let created = fake.records.first { ($0["fields"] as? [String: Any])?["Name"] as? String == "Pending" }
        XCTAssertEqual(finish.stdout, (created?["id"] as? String ?? "?") + "\n")
    }

    /// The lookup after a lost create counts only a project with this name *and* this due date, made since the
    /// create was sent: one of the same name made a moment earlier for another day is not it.
    func testALostCreateIsNotMistakenForAnotherOfTheSameName() throws {
        try startFake()
        let earlier = try tracker().run(["add", "--name", "Weekly review", "--due", "2026-11-20"])
        XCTAssertEqual(earlier.status, 0, earlier.stderr)
        fake.inject(.status(500, type: nil), onRequest: 1)
        let result = try impatientTracker(budget: 2).run(["add", "--name", "Weekly review", "--due", "2026-11-27"])
        assertFailure(result, status: 75, "the answer to creating \"Weekly review\" was lost")
        XCTAssertFalse(result.stderr.contains(earlier.stdout.trimmingCharacters(in: .newlines)))
        XCTAssertEqual(names().filter { $0 == "Weekly review" }.count, 1)
    }

    func testACreateResetOrAnswered5xxIsNeverSentAgain() throws {
        for fault in [
            FakeAirtable.Fault.reset, .status(500, type: nil), .status(502, type: nil),
            .status(503, type: "RETRIABLE_ERROR", message: "Server encountered an error"),
        ] {
            try startFake()
            fake.inject(fault, onRequest: 1)
            let result = try impatientTracker(budget: 2).run(["add", "--name", "Maybe", "--due", "2026-12-01"])
            assertFailure(result, status: 75, "the answer to creating \"Maybe\" was lost")
            XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 1, "\(fault)")
            XCTAssertEqual(names().filter { $0 == "Maybe" }.count, 0)
            fake.stop()
        }
    }

    func testACreateWithATruncatedCompressedAnswerIsNotDuplicated() throws {
        try startFake()
        fake.inject(.truncatedBody, onRequest: 1)
        let result = try tracker().run(["add", "--name", "Truncated", "--due", "2026-12-01"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(names().filter { $0 == "Truncated" }.count, 1)
        XCTAssertEqual(fake.recordLog.first?.encoding, "gzip")
    }

    func testACreateThatTimesOutIsNeverSentAgain() throws {
        try startFake()
        fake.inject(.stall(seconds: 5), onRequest: 1)
        let result = try impatientTracker(timeout: 1, budget: 4).run(["add", "--name", "Slow", "--due", "2026-12-01"])
        assertFailure(result, status: 75, "the answer to creating \"Slow\" was lost")
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 1)
    }

    func testACreateWhoseOutcomeCannotBeLearnedExits75() throws {
        try startFake()
        fake.inject(.applyThenDrop, onRequest: 1)
        for number in 2...12 { fake.inject(.status(502, type: nil), onRequest: number) }
        let result = try impatientTracker(budget: 2).run(["add", "--name", "Unknown", "--due", "2026-12-01"])
        assertFailure(result, status: 75, "the answer to creating \"Unknown\" was lost")
        XCTAssertTrue(result.stderr.contains("--if-absent"), result.stderr)
        XCTAssertEqual(names().filter { $0 == "Unknown" }.count, 1)
        XCTAssertEqual(fake.recordLog.filter { $0.method == "POST" }.count, 1)
    }

    // MARK: - Listing faults

    func testAnExpiredCursorRestartsTheListingAndPrintsNoProjectTwice() throws {
        try startFake(records: FakeAirtable.generatedProjects(count: 250))
        fake.inject(.expireIterator, onRequest: 3)
        let result = try tracker().run(["list"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 250)
        XCTAssertEqual(Set(result.lines).count, 250)
        XCTAssertEqual(fake.recordLog.map(\.status), [200, 200, 422, 200, 200, 200])
    }

    func testBodiesThatAreNotAPageExit69() throws {
        for (fault, message) in [
            (FakeAirtable.Fault.htmlPage, "got an HTML page instead of JSON"), (.emptyBody, "the body is empty"),
            (.wrongShape, "records is missing"),
        ] {
            try startFake(records: FakeAirtable.generatedProjects(count: 150))
            fake.inject(fault, onRequest: 2)
            let result = try tracker().run(["list"])
            XCTAssertEqual(result.status, 69)
            XCTAssertEqual(
                result.stderr,
                "tracker: unexpected answer from Airtable: \(message)\nAirtable may be having problems; try again later.\n"
            )
            XCTAssertEqual(
                result.lines.count, 100, "the first page was already streamed, but the exit status says failure")
            fake.stop()
        }
    }

    // MARK: - Signals

    func testCtrlCExits130Quietly() throws {
        try startFake()
        fake.injectOnEveryRequest(.stall(seconds: 20))
        let (process, out, err) = try tracker().start(["list"])
        // A sign that tracker is running, not a guess at how long it takes to start: its request reached the fake.
        let deadline = Date().addingTimeInterval(20)
        while fake.log.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(out.fileHandleForReading.readDataToEndOfFile(), Data())
        XCTAssertEqual(err.fileHandleForReading.readDataToEndOfFile(), Data())
    }
}
