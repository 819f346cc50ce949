import TrackerSystem
import TrackerModel
/// When and how long to wait before trying a request again.
public struct RetryPolicy: Sendable {
    /// The longest a command keeps retrying, in seconds, counted from its first attempt.
    var budgetSeconds: Double
    /// Retries allowed for 5xx answers and network failures (429 waits are bounded by the budget alone).
    var maxTransientRetries = 5
    /// First backoff for transient failures, doubled each time up to `transientCap`.
    var transientBase = 0.5
    var transientCap = 8.0
    /// Airtable locks a base out for 30 seconds after a burst, so a 429 without Retry-After waits at least this.
    var rateLimitBase = 30.0
    var rateLimitCap = 120.0

    public init(budgetSeconds: Double) {
        self.budgetSeconds = budgetSeconds
    }

    /// The wait before transient retry number `attempt` (0-based): capped exponential with full jitter above half.
    func transientDelay(attempt: Int, random: Double) -> Double {
        let ceiling = min(transientCap, transientBase * Double(1 << min(attempt, 20)))
        return ceiling / 2 + ceiling / 2 * random
    }

    /// The wait after the `attempt`-th 429 (0-based), honouring Retry-After when Airtable sent one.
    func rateLimitDelay(attempt: Int, retryAfter: Double?, random: Double) -> Double {
        if let retryAfter { return retryAfter + 0.25 * random }
        let base = min(rateLimitCap, rateLimitBase * Double(1 << min(attempt, 10)))
        return base + base * 0.1 * random
    }
}
