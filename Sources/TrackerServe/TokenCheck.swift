import TrackerMCP
import TrackerModel
import TrackerSystem

/// Whether an Airtable token reaches the base, the verdict kept a minute at most: how serve's health checks the
/// server's own token without asking Airtable at every probe. People never reach serve with Airtable tokens (see
/// `SignIn`).
package final class TokenCheck: Sendable {
    /// What the check of a token found.
    package enum Verdict: Sendable, Equatable {
        case person(Person)
        /// Not a token that reaches the base (why, for the log and the 401's description).
        case refused(String)
        /// Airtable could not say now (down, slow, the month spent): asked again in a few seconds.
        case unavailable(String)
    }

    /// Asks Airtable who `token` is and whether it reads the base.
    private let check: @Sendable (_ token: String) async -> Verdict
    private let now: @Sendable () -> Double
    /// How long a person's verdict is kept; a refusal is kept a quarter of it (a token fixed works again soon).
    package let keepSeconds: Double
    private let verdicts = Locked([String: (verdict: Verdict, until: Double)]())
    /// Checks under way, so a burst of requests with one new token asks Airtable once.
    private let pending = Locked([String: Task<Verdict, Never>]())

    package init(
        keepSeconds: Double = 60, now: @escaping @Sendable () -> Double = MonotonicClock.now,
        check: @escaping @Sendable (String) async -> Verdict
    ) {
        self.keepSeconds = keepSeconds
        self.now = now
        self.check = check
    }

    /// The verdict on an `Authorization` header's value.
    package func verdict(on authorization: String?) async -> Verdict {
        guard let token = Self.bearer(authorization) else { return .refused("no bearer token") }
        // Kept under a digest: the table holds no token.
        let key = Digest.hmacSHA256Hex(key: "tracker serve", token)
        let time = now()
        if let kept = verdicts.withLock({ $0[key] }), time < kept.until { return kept.verdict }
        let task = pending.withLock { pending in
            if let running = pending[key] { return running }
            let running = Task { await check(token) }
            pending[key] = running
            return running
        }
        let verdict = await task.value
        let keep =
            switch verdict {
            case .person: keepSeconds
            case .refused: keepSeconds / 4
            case .unavailable: min(5, keepSeconds)
            }
        verdicts.withLock { verdicts in
            // Bounded: the expired go first, and a table grown past 10,000 tokens is started again.
            if verdicts.count > 10_000 { verdicts = verdicts.filter { $0.value.until > time } }
            if verdicts.count > 10_000 { verdicts = [:] }
            verdicts[key] = (verdict, now() + keep)
        }
        pending.withLock { $0[key] = nil }
        return verdict
    }

    /// The token of `Bearer <token>`: one word of printable ASCII, at most 512 characters; nil for anything else.
    package static func bearer(_ authorization: String?) -> String? {
        guard let authorization, authorization.count <= 600 else { return nil }
        let parts = authorization.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1])
        guard token.count <= 512, token.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
            return nil
        }
        return token
    }
}
