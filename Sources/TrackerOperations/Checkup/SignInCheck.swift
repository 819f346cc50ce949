import TrackerModel

/// `doctor`'s look at serve's sign-in: the Airtable OAuth integration people sign in through (`serve.airtableOAuth`),
/// its secret, and the redirect URI the operator must register with it. Read from the configuration alone: whether
/// Airtable knows the integration shows at the first sign-in (Airtable says nothing of a client id without one).
package enum SignInCheck {
    /// Nil where serve is not set up (no `"serve"` settings): nothing to say.
    static func report(_ configuration: Configuration) -> DoctorCheck? {
        let serve = configuration.serve
        guard let integration = serve.airtableOAuth else {
            guard serve.publicURL != nil || serve.listen != nil else { return nil }
            return .failed(
                "sign-in",
                .configuration(
                    "nobody can sign in to serve: \"serve\" has no \"airtableOAuth\"",
                    hint:
                        "Register an OAuth integration at airtable.com/create/oauth and name it: \"serve\": {\"airtableOAuth\": {\"clientId\": \"…\", \"clientSecret\": \"…\"}}."
                ))
        }
        let issuer = serve.publicURL.map { String($0.reversed().drop { $0 == "/" }.reversed()) }
        let callback = (issuer ?? "http://" + (serve.listen ?? "127.0.0.1:8765")) + "/oauth/airtable/callback"
        if let issuer, issuer.lowercased().hasPrefix("http://"), !isLoopback(issuer) {
            return .failed(
                "sign-in",
                .configuration(
                    "serve's public URL \(issuer) is http:// beyond loopback: Airtable and the MCP clients require https",
                    hint: "Put serve behind a reverse proxy that speaks TLS and give its https:// address."))
        }
        if let command = integration.clientSecretCommand {
            if case .failure(let error) = TokenCommand.run(
                command, setting: "\"airtableOAuth\".\"clientSecretCommand\"", secret: "client secret",
                instead: "set \"clientSecret\" instead")
            {
                return .failed("sign-in", error)
            }
        }
        let secret =
            integration.clientSecretCommand != nil
            ? "its secret from clientSecretCommand"
            : integration.clientSecret != nil ? "its secret" : "no secret (PKCE alone)"
        var check = DoctorCheck(
            name: "sign-in",
            detail: "serve signs people in through the Airtable integration \(integration.clientID) (\(secret))")
        check.notes = [
            "its redirect URI at airtable.com/create/oauth must be exactly \(callback)",
            "scopes to grant it: data.records:read, data.records:write, data.recordComments:read, data.recordComments:write, schema.bases:read, user.email:read",
        ]
        if issuer == nil { check.notes.append("without --public-url, only this machine can sign in (loopback)") }
        return check
    }

    /// Whether `url`'s host is a loopback address (`localhost`, `127.x`, `[::1]`).
    package static func isLoopback(_ url: String) -> Bool {
        let authority = url.lowercased().drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
        if authority.hasPrefix("[") { return authority.hasPrefix("[::1]") }
        let host = authority.prefix { $0 != ":" }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let numeric = parts.count == 4 && parts.allSatisfy { Int($0).map { (0...255).contains($0) } ?? false }
        return host == "localhost" || host == "[::1]" || (numeric && parts[0] == "127")
    }
}
