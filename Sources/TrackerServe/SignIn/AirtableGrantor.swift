import TrackerAPI
import TrackerModel

/// What serve asks of Airtable while signing a person in and keeping their grant: injected, so the sign-in's rules
/// are tested without a network.
package struct AirtableGrantor: Sendable {
    /// Airtable's page where the person grants serve's integration, to come back to `redirectURI`.
    package var authorizeURL:
        @Sendable (_ state: String, _ challenge: String, _ scopes: [String], _ redirectURI: String) -> String
    /// The person's tokens for Airtable's code, given for `redirectURI`.
    package var exchange:
        @Sendable (_ code: String, _ verifier: String, _ redirectURI: String) async -> Result<
            AirtableTokenAnswer, AppError
        >
    /// New tokens for a refresh token (spent by this call, whatever its outcome).
    package var refresh: @Sendable (_ refreshToken: String) async -> Result<AirtableTokenAnswer, AppError>
    /// Who an access token's person is: their user id and, with `user.email:read`, their email.
    package var whoami: @Sendable (_ accessToken: String) async -> Result<Collaborator, AppError>
    /// Whether the access token reads the base (one record read).
    package var reachesBase: @Sendable (_ accessToken: String) async -> Result<Void, AppError>

    package init(
        authorizeURL: @escaping @Sendable (String, String, [String], String) -> String,
        exchange: @escaping @Sendable (String, String, String) async -> Result<AirtableTokenAnswer, AppError>,
        refresh: @escaping @Sendable (String) async -> Result<AirtableTokenAnswer, AppError>,
        whoami: @escaping @Sendable (String) async -> Result<Collaborator, AppError>,
        reachesBase: @escaping @Sendable (String) async -> Result<Void, AppError>
    ) {
        (self.authorizeURL, self.exchange, self.refresh) = (authorizeURL, exchange, refresh)
        (self.whoami, self.reachesBase) = (whoami, reachesBase)
    }

    /// Airtable itself, through `client` (paced and counted as every request to the base is) and `integration`.
    package static func airtable(_ client: ProjectAPIClient, _ integration: AirtableIntegration) -> AirtableGrantor {
        AirtableGrantor(
            authorizeURL: { state, challenge, scopes, redirectURI in
                var integration = integration
                integration.redirectURI = redirectURI
                return integration.authorizeURL(state: state, challenge: challenge, scopes: scopes)
            },
            exchange: { code, verifier, redirectURI in
                var integration = integration
                integration.redirectURI = redirectURI
                return await client.exchangeAirtableCode(code, verifier: verifier, with: integration)
            },
            refresh: { await client.refreshAirtableToken($0, with: integration) },
            whoami: { await client.speaking(as: $0).whoami() },
            reachesBase: { await client.speaking(as: $0).probeTable() })
    }
}
