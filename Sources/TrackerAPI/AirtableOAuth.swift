#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
@_spi(Sending) import TrackerNetwork
import TrackerModel

/// The Airtable OAuth integration an operator registered for `serve` (airtable.com/create/oauth).
public struct AirtableIntegration: Sendable, Equatable {
    public var clientID: String
    /// The integration's secret, sent by HTTP Basic; nil for an integration without one (PKCE alone).
    public var clientSecret: String?
    /// Where `/oauth2/v1/authorize` and `/oauth2/v1/token` are (`https://airtable.com`), without a trailing slash.
    public var url: String
    /// The redirect URI registered with the integration: `<issuer>/oauth/airtable/callback`.
    public var redirectURI: String

    public init(clientID: String, clientSecret: String?, url: String, redirectURI: String) {
        (self.clientID, self.clientSecret, self.url, self.redirectURI) = (clientID, clientSecret, url, redirectURI)
    }

    /// The page a person grants the integration on, asking for `scopes`, with serve's own `state` and PKCE challenge.
    public func authorizeURL(state: String, challenge: String, scopes: [String]) -> String {
        url + "/oauth2/v1/authorize?"
            + [
                ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
                ("scope", scopes.joined(separator: " ")), ("state", state), ("code_challenge", challenge),
                ("code_challenge_method", "S256"),
            ].map { ProjectAPIClient.escape($0.0) + "=" + ProjectAPIClient.escape($0.1) }.joined(separator: "&")
    }
}

/// What Airtable's token endpoint answers: a person's access token and the single-use refresh token beside it.
public struct AirtableTokenAnswer: Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    /// Seconds the access token lives (Airtable: 3,600).
    public var expiresIn: Double
    public var scope: String
}

extension ProjectAPIClient {
    /// Exchanges an authorization code for a person's tokens (PKCE: `verifier`).
    public func exchangeAirtableCode(_ code: String, verifier: String, with integration: AirtableIntegration) async
        -> Result<AirtableTokenAnswer, AppError>
    {
        await airtableToken(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", integration.redirectURI),
                ("code_verifier", verifier),
            ], integration)
    }

    /// Spends a person's refresh token for new tokens. Airtable's refresh tokens are single-use, and a second use
    /// revokes the person's grant, so this is sent once and never retried blindly.
    public func refreshAirtableToken(_ refreshToken: String, with integration: AirtableIntegration) async
        -> Result<AirtableTokenAnswer, AppError>
    {
        await airtableToken([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], integration)
    }

    private func airtableToken(_ form: [(String, String)], _ integration: AirtableIntegration) async
        -> Result<AirtableTokenAnswer, AppError>
    {
        guard let url = URL(string: integration.url + "/oauth2/v1/token") else {
            return .failure(.configuration("\"airtableOAuth\".\"url\" is not a URL", hint: nil))
        }
        var fields = form
        var request = HTTPRequest(url: url, method: "POST")
        if let secret = integration.clientSecret {
            let pair = Data((integration.clientID + ":" + secret).utf8).base64EncodedString()
            request.setValue("Basic " + pair, forHTTPHeaderField: "Authorization")
        } else {
            fields.append(("client_id", integration.clientID))
        }
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        request.body = Data(fields.map { Self.escape($0.0) + "=" + Self.escape($0.1) }.joined(separator: "&").utf8)
        // Not idempotent: a code or a refresh token is spent by the first arrival, and a lost answer is not re-sent.
        return await network.send(request, kind: .notIdempotent).flatMap { data in
            let body = try? JSONParser.parse(data)
            guard let access = body?["access_token"]?.stringValue, let refresh = body?["refresh_token"]?.stringValue
            else { return .failure(.badResponse("Airtable's token endpoint answered without tokens")) }
            return .success(
                AirtableTokenAnswer(
                    accessToken: access, refreshToken: refresh, expiresIn: body?["expires_in"]?.numberValue ?? 3600,
                    scope: body?["scope"]?.stringValue ?? ""))
        }
    }
}
