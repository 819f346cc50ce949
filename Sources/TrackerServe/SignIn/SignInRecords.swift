#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// A client serve knows: one that registered itself (`POST /register`).
struct SignInClient: Codable, Sendable {
    var id: String
    var name: String
    var redirectURIs: [String]
    /// The digest of a confidential client's secret; nil for a public client (PKCE alone).
    var secretDigest: String?
    var created: Double
}

/// A sign-in under way, from `/authorize` through the consent page and Airtable's callback.
struct PendingSignIn: Codable, Sendable {
    var clientID: String
    var clientName: String
    var redirectURI: String
    var state: String
    var challenge: String
    var resource: String
    var scope: String
    /// Digests of the consent page's CSRF token and of the browser's cookie: the decision comes from that page, in
    /// that browser.
    var csrfDigest: String
    var browserDigest: String
    /// serve's own PKCE verifier at Airtable, made when the person allows.
    var verifier: String?
    /// What the sign-in is for: a client's (nil), the person's own page (`account`), or a token for an agent made
    /// there (`agent`, for the person `accountUser`).
    var purpose: String? = nil
    var accountUser: String? = nil
    /// The page of serve's to go back to once signed in (`/approve/<id>`); nil: `/account`.
    var returnTo: String? = nil
}

/// A person signed in on `/account` (12 hours): who, and the CSRF token its forms carry.
struct AccountSession: Codable, Sendable {
    var user: String
    var email: String?
    var csrf: String
    /// The grant the session's own pages write with (an approval is made under the person's own Airtable token), its
    /// key wrapped by the session's cookie: only the browser that holds the cookie can open it.
    var grant: String? = nil
    var wrapped: String? = nil
}

/// A person's grant: who, to which client, and their Airtable tokens sealed under the grant's own key.
struct Grant: Codable, Sendable {
    var id: String
    var user: String
    var email: String?
    var clientID: String
    var clientName: String
    var scope: String
    var created: Double
    var lastUsed: Double
    /// The person's Airtable tokens (`AirtableGrantTokens` as JSON), AES-256-GCM under the grant's key, base64.
    var sealed: String
}

/// A person's Airtable tokens, only ever at rest sealed.
struct AirtableGrantTokens: Codable, Sendable {
    var access: String
    var refresh: String
    /// When the access token expires (seconds since 1970), and how long it was given for.
    var expires: Double
    var life: Double
}

/// A token or code serve issued, kept under its digest: what it is for, and the grant's key wrapped by it.
struct IssuedToken: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case code, access, refresh, agent }
    var grant: String
    var kind: Kind
    /// The grant's key sealed under a key made from this token: only its holder opens the grant.
    var wrapped: String
    var clientID: String
    var expires: Double
    /// A code's binding: the redirect URI, the PKCE challenge and the resource it was asked for.
    var redirectURI: String? = nil
    var challenge: String? = nil
    var resource: String? = nil
}

/// The keys and secrets of a sign-in: tokens random and opaque, kept only as digests, each wrapping its grant's key.
enum SignInKeys {
    /// A new token, code or state: 32 random bytes, base64url.
    static func newSecret() -> String { base64URL(Sealing.randomBytes(32)) }

    /// The hex SHA-256 of `secret`: what the store keeps in its place.
    static func digest(_ secret: String) -> String { Digest.hex(Digest.sha256(Array(secret.utf8))) }

    /// The key a token wraps its grant's key with (HMAC-SHA256 keyed by the token: not its digest, which is stored).
    static func wrappingKey(_ token: String) -> [UInt8] {
        Digest.hmacSHA256(key: Array(token.utf8), Array("tracker serve: a grant's key, wrapped".utf8))
    }

    /// The grant's key wrapped by `token`, base64.
    static func wrap(_ grantKey: [UInt8], by token: String) -> String? {
        Sealing.seal(grantKey, key: wrappingKey(token), context: "grant key").map { Data($0).base64EncodedString() }
    }

    /// The grant's key `token` wraps; nil when it is not the token that wrapped it.
    static func unwrap(_ wrapped: String, by token: String) -> [UInt8]? {
        guard let sealed = Data(base64Encoded: wrapped) else { return nil }
        return Sealing.open(Array(sealed), key: wrappingKey(token), context: "grant key")
    }

    /// The S256 PKCE challenge of `verifier`: base64url of its SHA-256, unpadded.
    static func challenge(of verifier: String) -> String { base64URL(Digest.sha256(Array(verifier.utf8))) }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    static func encode<T: Encodable>(_ value: T) -> String {
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        text.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }
}
