import TrackerModel
import TrackerSystem

/// Airtable's pings to `serve` (`POST /airtable/ping`), checked against the key of the webhook serve keeps: a ping is
/// taken only when its `X-Airtable-Content-MAC` is `hmac-sha256=` and the hex of HMAC-SHA256 of its body under that
/// key, compared in constant time. The key is a secret, kept like a token: never logged.
package final class PingCheck: Sendable {
    private let key = Locked<[UInt8]?>(nil)

    package init() {}

    /// The key pings are signed with from now on (nil: none yet, every ping refused).
    package func arm(_ secret: [UInt8]?) { key.withLock { $0 = secret } }

    package var isArmed: Bool { key.withLock { $0 != nil } }

    /// Whether `mac` signs `body` with the key.
    package func verifies(_ body: [UInt8], mac: String?) -> Bool {
        guard let secret = key.withLock({ $0 }), let mac, mac.hasPrefix("hmac-sha256=") else { return false }
        let expected = "hmac-sha256=" + Digest.hmacSHA256Hex(keyBytes: secret, body)
        return Digest.constantTimeEqual(mac.lowercased(), expected)
    }
}
