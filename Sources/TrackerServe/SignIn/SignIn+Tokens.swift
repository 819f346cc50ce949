#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerModel

/// The client's part: `POST /register`, `POST /token` and `POST /revoke`.
extension SignIn {
    /// An OAuth error answer: its status, `error` and description.
    package struct OAuthRefusal: Error, Sendable, Equatable {
        package var status: Int
        package var error: String
        package var description: String

        package var body: JSONValue {
            .object([("error", .string(error)), ("error_description", .string(description))])
        }
    }

    /// At most this many registrations from one address an hour, and these bounds on each.
    static let registrationsPerHour = 20
    static let mostRedirectURIs = 10
    static let longestName = 200

    /// `POST /register` (RFC 7591): a public client (`none`) or a confidential one with a secret shown once.
    package func register(_ body: Data, from address: String) -> Result<JSONValue, OAuthRefusal> {
        func refused(_ error: String, _ description: String) -> Result<JSONValue, OAuthRefusal> {
            .failure(OAuthRefusal(status: 400, error: error, description: description))
        }
        let time = now()
        let host = String(address.split(separator: ":").dropLast().joined(separator: ":"))
        let allowed = registrations.withLock { registrations -> Bool in
            if registrations.count > 10_000 { registrations = [:] }
            let recent = (registrations[host] ?? []).filter { time - $0 < 3600 }
            guard recent.count < Self.registrationsPerHour else { return false }
            registrations[host] = recent + [time]
            return true
        }
        guard allowed else {
            return .failure(
                OAuthRefusal(
                    status: 429, error: "slow_down",
                    description: "too many registrations from this address; try within the hour"))
        }
        guard let metadata = try? JSONParser.parse(body), metadata.objectMembers != nil else {
            return refused("invalid_client_metadata", "the body must be a JSON object")
        }
        let uris = metadata["redirect_uris"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !uris.isEmpty, uris.count <= Self.mostRedirectURIs else {
            return refused("invalid_redirect_uri", "give 1 to \(Self.mostRedirectURIs) redirect_uris")
        }
        if let bad = uris.first(where: { !Self.isAllowedRedirect($0) }) {
            return refused(
                "invalid_redirect_uri", "\(bad.prefix(100)) is neither https:// nor a loopback http:// address")
        }
        return registerChecked(metadata, uris: uris, at: time)
    }

    private func registerChecked(_ metadata: JSONValue, uris: [String], at time: Double) -> Result<
        JSONValue, OAuthRefusal
    > {
        let name = metadata["client_name"]?.stringValue ?? "An unnamed client"
        guard name.count <= Self.longestName,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return .failure(
                OAuthRefusal(
                    status: 400, error: "invalid_client_metadata",
                    description: "client_name: at most \(Self.longestName) characters, no control characters"))
        }
        let method = metadata["token_endpoint_auth_method"]?.stringValue ?? "none"
        guard ["none", "client_secret_basic", "client_secret_post"].contains(method) else {
            return .failure(
                OAuthRefusal(
                    status: 400, error: "invalid_client_metadata",
                    description: "token_endpoint_auth_method: none, client_secret_basic or client_secret_post"))
        }
        let grants =
            metadata["grant_types"]?.arrayValue?.compactMap(\.stringValue) ?? ["authorization_code", "refresh_token"]
        guard grants.allSatisfy({ ["authorization_code", "refresh_token"].contains($0) }) else {
            return .failure(
                OAuthRefusal(
                    status: 400, error: "invalid_client_metadata",
                    description: "grant_types: authorization_code and refresh_token"))
        }
        let id = "trc_" + SignInKeys.newSecret()
        let secret = method == "none" ? nil : SignInKeys.newSecret()
        let client = SignInClient(
            id: id, name: name, redirectURIs: uris, secretDigest: secret.map(SignInKeys.digest), created: time)
        do {
            try store.put(Self.clientKey(id), SignInKeys.encode(client), liveFor: Self.clientSeconds)
        } catch {
            return .failure(
                OAuthRefusal(
                    status: 503, error: "temporarily_unavailable", description: "the registration could not be kept"))
        }
        var answer: [(String, JSONValue)] = [
            ("client_id", .string(id)), ("client_id_issued_at", .number(time.rounded(.down))),
            ("client_name", .string(name)), ("redirect_uris", .array(uris.map(JSONValue.string))),
            ("grant_types", .array(grants.map(JSONValue.string))), ("response_types", .array([.string("code")])),
            ("token_endpoint_auth_method", .string(method)),
        ]
        if let secret { answer += [("client_secret", .string(secret)), ("client_secret_expires_at", .number(0))] }
        return .success(.object(answer))
    }

    /// A registration not used for 30 days expires.
    static let clientSeconds = 30 * 86_400.0

    /// A redirect URI a client may register: `https://`, or `http://` on a loopback address (any port, RFC 8252);
    /// no fragment.
    static func isAllowedRedirect(_ uri: String) -> Bool {
        guard !uri.contains("#"), uri.count <= 2000, !uri.contains(where: { $0.isWhitespace }) else { return false }
        let lower = uri.lowercased()
        if lower.hasPrefix("https://") { return host(of: uri).count > 0 }
        guard lower.hasPrefix("http://") else { return false }
        let hostAndPort = host(of: uri)
        let hostOnly =
            hostAndPort.hasPrefix("[")
            ? String(hostAndPort.prefix { $0 != "]" }) + "]" : String(hostAndPort.prefix { $0 != ":" })
        return hostOnly == "localhost" || hostOnly == "[::1]" || hostOnly.hasPrefix("127.")
    }

    /// The client `id` names, when registered and not expired (a use keeps it 30 more days), or described by its
    /// metadata document (an https URL).
    func client(_ id: String) -> SignInClient? { try? lookUpClient(id).get() }

    /// The client `id` names, or why there is none to use.
    func lookUpClient(_ id: String) -> Result<SignInClient, AppError> {
        if id.lowercased().hasPrefix("https://") { return documentedClient(id) }
        guard let client = SignInKeys.decode(SignInClient.self, try? store.get(Self.clientKey(id))) else {
            return .failure(.notFound("no client \(id.prefix(80)) is registered here", hint: nil))
        }
        try? store.put(Self.clientKey(id), SignInKeys.encode(client), liveFor: Self.clientSeconds)
        return .success(client)
    }

    /// `POST /token`: a code or a refresh token for serve's tokens.
    package func token(_ form: [(String, String)], authorization: String?) async -> Result<JSONValue, OAuthRefusal> {
        let client: SignInClient
        switch authenticate(form, authorization: authorization) {
        case .success(let found): client = found
        case .failure(let refusal): return .failure(refusal)
        }
        switch FormEncoding.single("grant_type", in: form) {
        case "authorization_code": return exchangeCode(form, client: client)
        case "refresh_token": return refresh(form, client: client)
        default:
            return .failure(
                OAuthRefusal(
                    status: 400, error: "unsupported_grant_type", description: "authorization_code or refresh_token"))
        }
    }

    /// The client a token request is from: its id (form or HTTP Basic) and, for a confidential one, its secret.
    private func authenticate(_ form: [(String, String)], authorization: String?) -> Result<SignInClient, OAuthRefusal>
    {
        var id = FormEncoding.single("client_id", in: form)
        var secret = FormEncoding.single("client_secret", in: form)
        if let authorization, authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingWhitespace()),
            let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        {
            id = String(pair[..<colon]).percentDecoded
            secret = String(pair[pair.index(after: colon)...]).percentDecoded
        }
        let invalid = OAuthRefusal(
            status: 401, error: "invalid_client", description: "the client is unknown or its secret is wrong")
        guard let id, let client = client(id) else { return .failure(invalid) }
        if let expected = client.secretDigest {
            guard let secret, Digest.constantTimeEqual(SignInKeys.digest(secret), expected) else {
                return .failure(invalid)
            }
        }
        return .success(client)
    }

    private func exchangeCode(_ form: [(String, String)], client: SignInClient) -> Result<JSONValue, OAuthRefusal> {
        let invalid = OAuthRefusal(
            status: 400, error: "invalid_grant", description: "the code is unknown, used, expired or not this client's")
        guard let code = FormEncoding.single("code", in: form) else { return .failure(invalid) }
        // Taken, so one use only; a second use finds it spent and revokes what the first issued.
        guard let record = SignInKeys.decode(IssuedToken.self, try? store.take(Self.tokenKey(code))) else {
            if let grant = try? store.take(Self.spentKey(code)) { try? revokeGrant(grant) }
            return .failure(invalid)
        }
        try? store.put(Self.spentKey(code), record.grant, liveFor: settings.codeSeconds)
        guard record.kind == .code, record.expires > now(), record.clientID == client.id,
            FormEncoding.single("redirect_uri", in: form) == record.redirectURI,
            let verifier = FormEncoding.single("code_verifier", in: form), (43...128).contains(verifier.count),
            let challenge = record.challenge,
            Digest.constantTimeEqual(SignInKeys.challenge(of: verifier), challenge),
            FormEncoding.single("resource", in: form).map({ $0 == record.resource }) ?? true,
            let grantKey = SignInKeys.unwrap(record.wrapped, by: code)
        else { return .failure(invalid) }
        return issue(grant: record.grant, key: grantKey, client: client)
    }

    private func refresh(_ form: [(String, String)], client: SignInClient) -> Result<JSONValue, OAuthRefusal> {
        let invalid = OAuthRefusal(
            status: 400, error: "invalid_grant", description: "the refresh token is unknown, used, expired or revoked")
        guard let token = FormEncoding.single("refresh_token", in: form) else { return .failure(invalid) }
        guard let record = SignInKeys.decode(IssuedToken.self, try? store.take(Self.tokenKey(token))) else {
            // Used before: someone holds a copy. Rotation's rule: the whole grant ends.
            if let grant = try? store.get(Self.spentKey(token)) { try? revokeGrant(grant) }
            return .failure(invalid)
        }
        try? store.put(Self.spentKey(token), record.grant, liveFor: settings.refreshSeconds)
        guard record.kind == .refresh, record.expires > now(), record.clientID == client.id,
            let grantKey = SignInKeys.unwrap(record.wrapped, by: token),
            (try? store.get(Self.grantKey(record.grant))) != nil
        else { return .failure(invalid) }
        return issue(grant: record.grant, key: grantKey, client: client)
    }

    /// A new access token and refresh token for `grant`, each wrapping its key.
    private func issue(grant: String, key: [UInt8], client: SignInClient) -> Result<JSONValue, OAuthRefusal> {
        let time = now()
        let (access, refresh) = (SignInKeys.newSecret(), SignInKeys.newSecret())
        guard let kept = SignInKeys.decode(Grant.self, try? store.get(Self.grantKey(grant))),
            let accessWrap = SignInKeys.wrap(key, by: access), let refreshWrap = SignInKeys.wrap(key, by: refresh)
        else {
            return .failure(OAuthRefusal(status: 400, error: "invalid_grant", description: "the grant was revoked"))
        }
        do {
            try store.put(
                Self.tokenKey(access),
                SignInKeys.encode(
                    IssuedToken(
                        grant: grant, kind: .access, wrapped: accessWrap, clientID: client.id,
                        expires: time + settings.accessSeconds)),
                liveFor: settings.accessSeconds + 86_400)
            try store.put(
                Self.tokenKey(refresh),
                SignInKeys.encode(
                    IssuedToken(
                        grant: grant, kind: .refresh, wrapped: refreshWrap, clientID: client.id,
                        expires: time + settings.refreshSeconds)),
                liveFor: settings.refreshSeconds)
            // A grant in use lives as long as its newest refresh token.
            try store.put(Self.grantKey(grant), SignInKeys.encode(kept), liveFor: settings.refreshSeconds)
        } catch {
            return .failure(
                OAuthRefusal(status: 503, error: "temporarily_unavailable", description: "the tokens could not be kept")
            )
        }
        return .success(
            .object([
                ("access_token", .string(access)), ("token_type", .string("Bearer")),
                ("expires_in", .number(settings.accessSeconds)), ("refresh_token", .string(refresh)),
                ("scope", .string(kept.scope)),
            ]))
    }

    /// `POST /revoke` (RFC 7009): the token's grant ends, whatever the token was; an unknown token is no error.
    package func revoke(_ form: [(String, String)]) {
        guard let token = FormEncoding.single("token", in: form),
            let record = SignInKeys.decode(IssuedToken.self, try? store.get(Self.tokenKey(token)))
        else { return }
        try? store.delete(Self.tokenKey(token))
        try? revokeGrant(record.grant)
    }
}
