import Testing

@testable import TrackerMCP
@testable import TrackerServe
@testable import TrackerSystem

/// Who a request to `serve` is: the bearer checked once, the verdict kept at most a minute (a revoked token stops
/// working within one), a refusal a quarter of that, and a burst of requests with one new token checked once.
struct TokenCheckTests {
    final class Checks: Sendable {
        let count = Locked(0)
        let refusing = Locked<Set<String>>([])
        let clock = Locked(1000.0)
    }

    private func tokenCheck(_ checks: Checks) -> TokenCheck {
        TokenCheck(keepSeconds: 60, now: { checks.clock.withLock { $0 } }) { token in
            checks.count.withLock { $0 += 1 }
            if checks.refusing.withLock({ $0.contains(token) }) { return .refused("Authentication required") }
            return .person(Person(token: token, userID: "usr" + token))
        }
    }

    @Test func aVerdictIsKeptAMinuteAtMostSoARevokedTokenStopsWithinOne() async {
        let checks = Checks()
        let door = tokenCheck(checks)
        #expect(await door.verdict(on: "Bearer patA") == .person(Person(token: "patA", userID: "usrpatA")))
        checks.refusing.withLock { _ = $0.insert("patA") }
        checks.clock.withLock { $0 += 59 }
        #expect(await door.verdict(on: "Bearer patA") == .person(Person(token: "patA", userID: "usrpatA")))
        #expect(checks.count.withLock { $0 } == 1, "asked Airtable again within the minute")
        checks.clock.withLock { $0 += 2 }
        #expect(await door.verdict(on: "Bearer patA") == .refused("Authentication required"))
        #expect(checks.count.withLock { $0 } == 2)
    }

    @Test func aRefusalIsKeptAQuarterAsLongSoAFixedTokenWorksSoon() async {
        let checks = Checks()
        checks.refusing.withLock { _ = $0.insert("patB") }
        let door = tokenCheck(checks)
        #expect(await door.verdict(on: "Bearer patB") == .refused("Authentication required"))
        checks.refusing.withLock { $0 = [] }
        checks.clock.withLock { $0 += 16 }
        #expect(await door.verdict(on: "Bearer patB") == .person(Person(token: "patB", userID: "usrpatB")))
    }

    @Test func aBurstWithOneNewTokenAsksAirtableOnce() async {
        let checks = Checks()
        let door = tokenCheck(checks)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = await door.verdict(on: "Bearer patC") } }
        }
        #expect(checks.count.withLock { $0 } == 1)
    }

    @Test func onlyABearerOfOneWordIsAToken() {
        #expect(TokenCheck.bearer("Bearer patX.123") == "patX.123")
        #expect(TokenCheck.bearer("bearer patX") == "patX")
        #expect(TokenCheck.bearer(nil) == nil)
        #expect(TokenCheck.bearer("Basic dXNlcjpwYXNz") == nil)
        #expect(TokenCheck.bearer("Bearer two words") == nil)
        #expect(TokenCheck.bearer("Bearer pat\u{7F}") == nil)
        #expect(TokenCheck.bearer("Bearer " + String(repeating: "a", count: 513)) == nil)
    }
}
