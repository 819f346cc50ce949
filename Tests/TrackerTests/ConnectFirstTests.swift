import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@_spi(Sending) @testable import TrackerNetwork
@testable import TrackerSystem

/// Airtable counts a request where it arrives. A transport that says when its connection is open (libcurl's) connects
/// first and takes the turn there, so only the request's bytes follow the turn: it is paced as a request on an open
/// connection, not as one that may arrive the handshakes' time later.
@Suite struct ConnectFirstTests {
    /// Opens its connection when the send starts, asks the gate, and sends only when let go.
    struct Connecting: HTTPTransport {
        let events: Locked<[String]>
        var connectsBeforeSending: Bool { true }

        func send(_ request: HTTPRequest, fresh: Bool, timeout: Double) async -> TransportOutcome {
            events.withLock { $0.append("send") }
            return await StubTransport().send(request, fresh: fresh, timeout: timeout)
        }

        func send(
            _ request: HTTPRequest, fresh: Bool, timeout: Double, whenConnected: @escaping @Sendable () async -> Bool
        ) async -> TransportOutcome {
            events.withLock { $0.append("connect") }
            guard await whenConnected() else { return .failed(.cancelled) }
            return await send(request, fresh: fresh, timeout: timeout)
        }
    }

    /// Turns `reserveWait` seconds away; each confirmation answers the next of `confirmWaits` (0 once they run out).
    /// Remembers the spread asked for and every confirmation.
    final class ScriptedPacer: RequestPacer, @unchecked Sendable {
        let events: Locked<[String]>
        let reserveWait: Double
        let confirmWaits: Locked<[Double]>
        init(events: Locked<[String]>, reserveWait: Double, confirmWaits: [Double] = []) {
            (self.events, self.reserveWait, self.confirmWaits) = (events, reserveWait, Locked(confirmWaits))
        }
        func nextTurn() -> Double { reserveWait }
        func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn {
            events.withLock { $0.append("turn spread \(spread)") }
            return PaceTurn(wait: reserveWait, slots: ["base": 1], spread: spread)
        }
        func confirmTurn(_ turn: PaceTurn) -> PaceTurn {
            events.withLock { $0.append("confirm") }
            let wait = confirmWaits.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
            return PaceTurn(wait: wait, slots: turn.slots)
        }
        func rateLimited(holdingFor seconds: Double) {}
    }

    /// A helper sending through `Connecting`, paced by `pacer`, on `clock`, counting in `ledger`.
    func helper(_ events: Locked<[String]>, _ pacer: ScriptedPacer, clock: TestClock, ledger: CountingLedger)
        -> NetworkHelper
    {
        NetworkHelper(
            transport: Connecting(events: events), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: pacer, rules: ProjectAPIClient.rules, environment: clock.environment(), usage: ledger)
    }

    /// A create to `host`.
    func write(to host: StubTransport.Host) -> HTTPRequest {
        var request = HTTPRequest(url: URL(string: "https://\(host.name)/")!)
        request.method = "POST"
        request.body = Data("{}".utf8)
        return request
    }

    /// Counts what the month's ledger is told.
    final class CountingLedger: UsageLedger, @unchecked Sendable {
        let counted = Locked(0)
        func count(face: String, use: RequestUse) { counted.withLock { $0 += 1 } }
        func markSpent() {}
        func thisMonth() -> MonthUsage? { nil }
        var keeper: String { "a test" }
    }

    /// It sleeps until the handshakes' worst before its turn, connects, and confirms the turn on the open connection
    /// before the request leaves; the turn asks for no spread. Paced before connecting, the confirmation would come
    /// before the connection and the handshakes between the turn and the arrival.
    @Test func aRequestConnectsAheadOfItsTurnAndConfirmsItOnceConnected() async throws {
        let events = Locked<[String]>([])
        let clock = TestClock()
        let host = StubTransport.host([.http(200, body: "{}")])
        let helper = helper(
            events, ScriptedPacer(events: events, reserveWait: 2), clock: clock, ledger: CountingLedger())
        let result = await helper.send(HTTPRequest(url: URL(string: "https://\(host.name)/")!), kind: .idempotent)
        #expect(throws: Never.self) { try result.get() }
        #expect(events.withLock { $0 } == ["turn spread 0.0", "connect", "confirm", "send"])
        let sleeps = clock.sleeps
        #expect(sleeps.count == 2 && abs(sleeps[0] - 1.7) < 1e-9 && abs(sleeps[1] - 0.3) < 1e-9, "\(sleeps)")
    }

    /// A write whose lease is lost while it waits is stopped at its gate: connected, never sent, not counted.
    @Test func aWriteStoppedAtItsGateIsNeverSentNorCounted() async throws {
        let events = Locked<[String]>([])
        let ledger = CountingLedger()
        let host = StubTransport.host([.http(200, body: "{}")])
        let helper = helper(events, ScriptedPacer(events: events, reserveWait: 2), clock: TestClock(), ledger: ledger)
        let request = write(to: host)
        let result = await helper.send(request, kind: .notIdempotent) { () throws(AppError) in
            throw AppError.interrupted
        }
        #expect(result.failure == .interrupted)
        #expect(events.withLock { $0 } == ["turn spread 0.0", "connect"])
        #expect(host.requests.isEmpty && ledger.counted.withLock { $0 } == 0)
    }

    /// A turn confirmed at the gate 30 s off (another process's 429 hold): the open connection is given up, the wait
    /// slept out before connecting again, and the request sent once, on the confirmed turn. Held at the gate, its
    /// transfer's deadline would run out with nothing sent, and a write would be reported as perhaps made.
    @Test func aLongWaitFoundAtTheGateIsSleptOutBeforeConnectingAgain() async throws {
        let events = Locked<[String]>([])
        let clock = TestClock()
        let ledger = CountingLedger()
        let host = StubTransport.host([.http(200, body: "{}")])
        let pacer = ScriptedPacer(events: events, reserveWait: 0, confirmWaits: [30])
        let helper = helper(events, pacer, clock: clock, ledger: ledger)
        let request = write(to: host)
        let result = await helper.send(request, kind: .notIdempotent) { () throws(AppError) in }
        #expect(throws: Never.self) { try result.get() }
        #expect(events.withLock { $0 } == ["turn spread 0.0", "connect", "confirm", "connect", "confirm", "send"])
        let sleeps = clock.sleeps
        #expect(sleeps.reduce(0, +) >= 30 - 1e-9, "the hold slept out: \(sleeps)")
        #expect(host.requests.count == 1 && ledger.counted.withLock { $0 } == 1)
    }
}
