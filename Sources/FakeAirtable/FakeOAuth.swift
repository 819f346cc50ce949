#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerSystem
import TrackerModel

/// The integration a test registers with the fake's OAuth: Airtable's `/oauth2/v1/authorize` and `/oauth2/v1/token`.
public struct FakeOAuthIntegration: Sendable {
    public var clientID = "fakeIntegration00001"
    /// Sent by HTTP Basic when set; nil for an integration that uses PKCE alone.
    public var clientSecret: String? = "fake-integration-secret"
    /// The redirect URIs registered; empty takes any (a test that does not know serve's port yet).
    public var redirectURIs: [String] = []
    /// How long an access token lives (Airtable: 60 minutes); tests shorten it.
    public var accessSeconds = 3600.0

    public init() {}
}

/// Airtable's OAuth as the fake keeps it: codes (single use, PKCE), access tokens that act as their person on every
/// route until they expire, and refresh tokens that are single-use, a second use revoking the whole chain.
final class FakeOAuthState: @unchecked Sendable {
    struct Code { var user: String, redirectURI: String, challenge: String, scope: String, expires: Double }
    struct Access { var user: String, chain: String, expires: Double, scope: String }
    struct Refresh { var user: String, chain: String, scope: String, used: Bool }

    var codes: [String: Code] = [:]
    var accessTokens: [String: Access] = [:]
    var refreshTokens: [String: Refresh] = [:]
    var revokedChains: Set<String> = []
    /// Every token request, in order: its grant type and whether it was answered with tokens.
    var exchanges: [(grantType: String, granted: Bool)] = []

    /// The user an access token acts as, while it lives and its chain stands.
    func user(ofAccess token: String, at time: Double) -> String? {
        guard let access = accessTokens[token], access.expires > time, !revokedChains.contains(access.chain) else {
            return nil
        }
        return access.user
    }
}

extension FakeAirtable {
    /// The token requests the fake's OAuth has answered: (`authorization_code` or `refresh_token`, granted).
    public var oauthExchanges: [(grantType: String, granted: Bool)] { locked { oauth.exchanges } }

    /// Every access and refresh token the fake's OAuth has issued, for tests that look for them where they must not be.
    public var oauthTokensIssued: [String] {
        locked { Array(oauth.accessTokens.keys) + Array(oauth.refreshTokens.keys) }
    }

    /// Revokes every token of `user`'s grants, as a person removing the integration in Airtable does.
    public func revokeOAuthGrants(of user: String) {
        locked {
            for (_, access) in oauth.accessTokens where access.user == user { oauth.revokedChains.insert(access.chain) }
        }
    }

    /// Airtable's OAuth routes; nil for any other path.
    func oauthRoute(_ request: HTTPRequest) -> HTTPAction? {
        switch (request.method, request.path) {
        case ("GET", "/oauth2/v1/authorize"): return oauthPage(FormEncoding.pairs(request.query))
        case ("POST", "/oauth2/v1/authorize"): return oauthGrant(FormEncoding.pairs(request.body))
        case ("POST", "/oauth2/v1/token"): return oauthToken(request)
        default: return request.path.hasPrefix("/oauth2/") ? notFoundRoute() : nil
        }
    }

    private func oauthProblem(_ request: [(String, String)]) -> String? {
        guard let integration = options.oauth else { return "this fake has no OAuth integration" }
        func one(_ name: String) -> String? { FormEncoding.single(name, in: request) }
        guard one("client_id") == integration.clientID else { return "unknown client_id" }
        guard let redirect = one("redirect_uri"),
            integration.redirectURIs.isEmpty || integration.redirectURIs.contains(redirect)
        else { return "redirect_uri is not registered" }
        guard one("response_type") == "code" else { return "response_type must be code" }
        guard one("code_challenge_method") == "S256", (one("code_challenge")?.count ?? 0) >= 43 else {
            return "PKCE with S256 is required"
        }
        return nil
    }

    /// The page where a person of the base grants the integration: one button a person (the demo's and the tests'
    /// people), and Cancel.
    private func oauthPage(_ query: [(String, String)]) -> HTTPAction {
        if let problem = oauthProblem(query) {
            return .respond(status: 400, headers: ["Content-Type": "text/plain"], body: Data("\(problem)\n".utf8))
        }
        let hidden = query.filter { $0.0 != "user" && $0.0 != "decision" }.map {
            "<input type=\"hidden\" name=\"\(Self.html($0.0))\" value=\"\(Self.html($0.1))\">"
        }.joined(separator: "\n")
        let people = [options.user.id] + options.persons.values.sorted()
        let buttons = people.map {
            "<button type=\"submit\" name=\"user\" value=\"\($0)\">Grant access as \($0)</button>"
        }.joined(separator: "\n")
        let page = """
            <!doctype html><html><head><meta charset="utf-8"><title>Airtable (fake): grant access</title></head><body>
            <h1>Grant an integration access to your base</h1>
            <p>Scopes: \(Self.html(FormEncoding.single("scope", in: query) ?? ""))</p>
            <form method="post" action="/oauth2/v1/authorize">
            \(hidden)
            \(buttons)
            <button type="submit" name="decision" value="cancel">Cancel</button>
            </form></body></html>
            """
        return .respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(page.utf8))
    }

    private func oauthGrant(_ form: [(String, String)]) -> HTTPAction {
        if let problem = oauthProblem(form) {
            return .respond(status: 400, headers: ["Content-Type": "text/plain"], body: Data("\(problem)\n".utf8))
        }
        let redirect = FormEncoding.single("redirect_uri", in: form) ?? ""
        let state = FormEncoding.single("state", in: form) ?? ""
        let separator = redirect.contains("?") ? "&" : "?"
        guard let user = FormEncoding.single("user", in: form), FormEncoding.single("decision", in: form) != "cancel"
        else {
            return .respond(
                status: 302,
                headers: [
                    "Location": redirect + separator
                        + FormEncoding.encode([("error", "access_denied"), ("state", state)])
                ],
                body: Data())
        }
        let code = "oacFAKE" + Digest.randomHex(bytes: 16)
        locked {
            oauth.codes[code] = FakeOAuthState.Code(
                user: user, redirectURI: redirect, challenge: FormEncoding.single("code_challenge", in: form) ?? "",
                scope: FormEncoding.single("scope", in: form) ?? "", expires: Self.now.timeIntervalSince1970 + 600)
        }
        return .respond(
            status: 302,
            headers: ["Location": redirect + separator + FormEncoding.encode([("code", code), ("state", state)])],
            body: Data())
    }

    private func oauthToken(_ request: HTTPRequest) -> HTTPAction {
        let form = FormEncoding.pairs(request.body)
        let grantType = FormEncoding.single("grant_type", in: form) ?? ""
        func refused(_ status: Int, _ error: String, _ description: String) -> HTTPAction {
            locked { oauth.exchanges.append((grantType, false)) }
            return .respond(
                status: status, headers: ["Content-Type": "application/json"],
                body: Self.json(["error": error, "error_description": description]))
        }
        guard let integration = options.oauth else { return refused(400, "invalid_client", "no integration") }
        if let secret = integration.clientSecret {
            let expected = "Basic " + Data((integration.clientID + ":" + secret).utf8).base64EncodedString()
            guard request.header("authorization") == expected else {
                return refused(401, "invalid_client", "the client's credentials are wrong")
            }
        }
        let time = Self.now.timeIntervalSince1970
        let issued: (user: String, chain: String, scope: String)?
        switch grantType {
        case "authorization_code":
            issued = locked { () -> (String, String, String)? in
                guard let code = FormEncoding.single("code", in: form),
                    let kept = oauth.codes.removeValue(forKey: code),
                    kept.expires > time, kept.redirectURI == FormEncoding.single("redirect_uri", in: form),
                    let verifier = FormEncoding.single("code_verifier", in: form),
                    Self.challenge(of: verifier) == kept.challenge
                else { return nil }
                return (kept.user, Digest.randomHex(bytes: 8), kept.scope)
            }
        case "refresh_token":
            issued = locked { () -> (String, String, String)? in
                guard let token = FormEncoding.single("refresh_token", in: form), let kept = oauth.refreshTokens[token],
                    !oauth.revokedChains.contains(kept.chain)
                else { return nil }
                guard !kept.used else {
                    // Airtable's rule: a refresh token used twice revokes the whole chain.
                    oauth.revokedChains.insert(kept.chain)
                    return nil
                }
                oauth.refreshTokens[token]?.used = true
                return (kept.user, kept.chain, kept.scope)
            }
        default: return refused(400, "unsupported_grant_type", "authorization_code or refresh_token")
        }
        guard let issued else { return refused(400, "invalid_grant", "the code or refresh token is invalid") }
        let access = "oaaFAKE" + Digest.randomHex(bytes: 24)
        let refresh = "oarFAKE" + Digest.randomHex(bytes: 24)
        locked {
            oauth.accessTokens[access] = FakeOAuthState.Access(
                user: issued.user, chain: issued.chain, expires: time + integration.accessSeconds, scope: issued.scope)
            oauth.refreshTokens[refresh] = FakeOAuthState.Refresh(
                user: issued.user, chain: issued.chain, scope: issued.scope, used: false)
            oauth.exchanges.append((grantType, true))
        }
        return .respond(
            status: 200, headers: ["Content-Type": "application/json"],
            body: Self.json([
                "access_token": access, "refresh_token": refresh, "token_type": "Bearer", "scope": issued.scope,
                "expires_in": Int(integration.accessSeconds), "refresh_expires_in": 60 * 86_400,
            ]))
    }

    public static func challenge(of verifier: String) -> String {
        Data(Digest.sha256(Array(verifier.utf8))).base64EncodedString().replacing("+", with: "-")
            .replacing("/", with: "_").replacing("=", with: "")
    }

    static func html(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
            .replacing("\"", with: "&quot;")
    }
}
