import Testing

@testable import TrackerAPI

/// The one rule every kept webhook follows (the copy's and serve's doorbell): refreshed once fewer than 6 of its 7
/// days are left, never once it has run out, and not while its expiry is unknown.
@Suite struct WebhookLifeTests {
    let now = 1_800_000_000.0

    @Test func aHookIsDueOnceFewerThanSixOfItsSevenDaysAreLeft() {
        let day = 86_400.0
        #expect(!WebhookLife(id: "ach1", expires: now + 7 * day).isDue(now: now))
        #expect(!WebhookLife(id: "ach1", expires: now + 6 * day + 1).isDue(now: now))
        #expect(WebhookLife(id: "ach1", expires: now + 6 * day - 1).isDue(now: now))
        #expect(WebhookLife(id: "ach1", expires: now + 60).isDue(now: now))
    }

    @Test func aHookRunOutOrOfUnknownExpiryIsNotDue() {
        #expect(!WebhookLife(id: "ach1", expires: now).isDue(now: now))
        #expect(!WebhookLife(id: "ach1", expires: now - 1).isDue(now: now))
        #expect(!WebhookLife(id: "ach1", expires: nil).isDue(now: now))
    }
}
