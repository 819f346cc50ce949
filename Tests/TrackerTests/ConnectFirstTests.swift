import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
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

    /// A turn two seconds away, confirmed at once; remembers the spread asked for.
    struct TwoSecondsAway: RequestPacer {
        let events: Locked<[String]>
        func nextTurn() -> Double { 2 }
        func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn {
            events.withLock { $0.append("turn spread \(spread)") }
            return PaceTurn(wait: 2, slots: ["base": 1], spread: spread)
        }
        func confirmTurn(_ turn: PaceTurn) -> PaceTurn {
            events.withLock { $0.append("confirm") }
            return PaceTurn(wait: 0, slots: turn.slots)
        }
        func rateLimited(holdingFor seconds: Double) {}
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
        let helper = NetworkHelper(
            transport: Connecting(events: events), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: TwoSecondsAway(events: events), rules: ProjectAPIClient.rules, environment: clock.environment())
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
        let helper = NetworkHelper(
            transport: Connecting(events: events), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: TwoSecondsAway(events: events), rules: ProjectAPIClient.rules,
            environment: TestClock().environment(), usage: ledger)
        var request = HTTPRequest(url: URL(string: "https://\(host.name)/")!)
        request.method = "POST"
        request.body = Data("{}".utf8)
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
        final class HeldOnce: RequestPacer, @unchecked Sendable {
            let events: Locked<[String]>
            let confirms = Locked(0)
            init(events: Locked<[String]>) { self.events = events }
            func nextTurn() -> Double { 0 }
            func reserveTurn(notBefore delay: Double, spread: Double) -> PaceTurn {
                events.withLock { $0.append("turn") }
                return PaceTurn(wait: 0, slots: ["base": 1])
            }
            func confirmTurn(_ turn: PaceTurn) -> PaceTurn {
                events.withLock { $0.append("confirm") }
                let count = confirms.withLock { count in
                    count += 1
                    return count
                }
                return count == 1 ? PaceTurn(wait: 30, slots: ["base": 31]) : PaceTurn(wait: 0, slots: turn.slots)
            }
            func rateLimited(holdingFor seconds: Double) {}
        }
        let events = Locked<[String]>([])
        let clock = TestClock()
        let ledger = CountingLedger()
        let host = StubTransport.host([.http(200, body: "{}")])
        let helper = NetworkHelper(
            transport: Connecting(events: events), timeoutSeconds: 30, policy: RetryPolicy(budgetSeconds: 120),
            pacer: HeldOnce(events: events), rules: ProjectAPIClient.rules, environment: clock.environment(),
            usage: ledger)
        var request = HTTPRequest(url: URL(string: "https://\(host.name)/")!)
        request.method = "POST"
        request.body = Data("{}".utf8)
        let result = await helper.send(request, kind: .notIdempotent) { () throws(AppError) in }
        #expect(throws: Never.self) { try result.get() }
        #expect(events.withLock { $0 } == ["turn", "connect", "confirm", "connect", "confirm", "send"])
        let sleeps = clock.sleeps
        #expect(sleeps.reduce(0, +) >= 30 - 1e-9, "the hold slept out: \(sleeps)")
        #expect(host.requests.count == 1 && ledger.counted.withLock { $0 } == 1)
    }
}
