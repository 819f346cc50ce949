#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// One rule for keeping alive every webhook tracker keeps (the copy's, which it polls, and serve's doorbell, which
/// pings it): a hook lives 7 days from when it was made, polled or refreshed, and is refreshed once fewer than 6 of
/// them are left, judged by Airtable's clock when it is known; a hook Airtable says is gone (404) is made again.
public struct WebhookLife: Sendable, Equatable {
    /// How long a hook lives after it was made, last polled or refreshed.
    public static let lifetime = 7 * 86400.0
    /// Refreshed once fewer than this many seconds of its life are left: a day after it was last moved on.
    public static let refreshBelow = 6 * 86400.0

    public var id: String
    /// When it runs out, seconds since 1970; nil when unknown.
    public var expires: Double?

    public init(id: String, expires: Double?) { (self.id, self.expires) = (id, expires) }

    /// Whether it is due a refresh at `now`: fewer than 6 of its 7 days left and not yet run out (one that has run
    /// out is gone: refreshing it is a 404).
    public func isDue(now: Double) -> Bool {
        guard let expires else { return false }
        return expires - now < Self.refreshBelow && expires > now
    }

    /// What a refresh came to.
    public enum Refreshed: Sendable, Equatable {
        /// Another 7 days: its new expiry (nil when Airtable's answer did not say).
        case renewed(expires: Double?)
        /// Airtable no longer has it (404): it is made again.
        case gone
        /// Refused for another reason (a token that may poll but not refresh, the network): kept as it is.
        case kept
    }

    /// Refreshes it through `client`, when it is due at `now` or `always`; `.kept` when it is not due.
    @_spi(Webhooks) public func refresh(through client: ProjectAPIClient, now: Double, always: Bool = false) async
        -> Refreshed
    {
        guard always || isDue(now: now) else { return .kept }
        switch await client.refreshWebhook(id) {
        case .success(let time): return .renewed(expires: time.flatMap(ISOInstant.date)?.timeIntervalSince1970)
        case .failure(.http(404, _)): return .gone
        case .failure: return .kept
        }
    }
}
