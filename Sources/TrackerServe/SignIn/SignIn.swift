#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerNetwork
import TrackerSystem
import TrackerMCP

/// serve as its own OAuth 2.1 authorization server, chained to Airtable's: clients register and send a person here;
/// the person allows on serve's consent page, then grants serve's Airtable integration; serve keeps that Airtable
/// grant sealed and issues its own tokens, the only bearer it takes. The rules live here, apart from HTTP.
package final class SignIn: Sendable {
    /// What the sign-in is and offers.
    package struct Settings: Sendable {
        /// The issuer: `--public-url`, or `http://127.0.0.1:PORT` on loopback.
        package var issuer: String
        /// Whether clients may be granted writes.
        package var readOnly = false
        /// The base people grant access to, named on the consent page.
        package var baseName = ""
        /// Why nobody can sign in (no Airtable integration is set up); nil when they can.
        package var unavailable: String?
        /// Lives of serve's codes, access tokens and refresh tokens (10 minutes, 1 hour, 30 days unused).
        package var codeSeconds = 600.0
        package var accessSeconds = 3600.0
        package var refreshSeconds = 30 * 86_400.0

        package init(issuer: String) { self.issuer = issuer }

        /// The protected resource: `<issuer>/mcp`.
        package var resource: String { issuer + "/mcp" }
    }

    /// What a bearer came to.
    package enum Verdict: Error, Sendable, Equatable {
        case person(Person)
        /// Not a token of serve's (`expired` false: one it never issued) or one no longer good (`expired` true: the
        /// 401 says `invalid_token`).
        case refused(String, expired: Bool)
        /// The store or Airtable could not say now.
        case unavailable(String)
    }

    private let kept: Locked<Settings>
    /// What the sign-in is now (its issuer is known once serve has bound its port).
    package var settings: Settings { kept.withLock { $0 } }
    let store: any SignInStore
    let airtable: AirtableGrantor?
    let now: @Sendable () -> Double
    /// Registrations by address in the last hour (bounded: a flood from one address is refused).
    let registrations = Locked([String: [Double]]())
    /// Fetches a client's metadata document (GuardedFetch's bounds; a test gives its own).
    let fetchDocument: @Sendable (String) -> Result<GuardedFetch.Fetched, AppError>

    package init(
        settings: Settings, store: any SignInStore, airtable: AirtableGrantor?,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        fetchDocument: @escaping @Sendable (String) -> Result<GuardedFetch.Fetched, AppError> = {
            GuardedFetch.fetch($0)
        }
    ) {
        self.fetchDocument = fetchDocument
        self.kept = Locked(settings)
        self.store = store
        self.airtable = airtable
        self.now = now
    }

    /// Sets the issuer: the public URL, or the loopback address serve bound.
    package func setIssuer(_ issuer: String) { kept.withLock { $0.issuer = issuer } }

    /// The scopes serve offers.
    package var scopesSupported: [String] { settings.readOnly ? ["tracker:read"] : ["tracker:read", "tracker:write"] }

    /// RFC 9728's metadata of the protected resource.
    package var resourceMetadata: JSONValue {
        .object([
            ("resource", .string(settings.resource)), ("authorization_servers", .array([.string(settings.issuer)])),
            ("scopes_supported", .array(scopesSupported.map(JSONValue.string))),
            ("bearer_methods_supported", .array([.string("header")])), ("resource_name", .string("tracker")),
        ])
    }

    /// RFC 8414's metadata of the authorization server.
    package var authorizationServerMetadata: JSONValue {
        let issuer = settings.issuer
        return .object([
            ("issuer", .string(issuer)), ("authorization_endpoint", .string(issuer + "/authorize")),
            ("token_endpoint", .string(issuer + "/token")), ("registration_endpoint", .string(issuer + "/register")),
            ("revocation_endpoint", .string(issuer + "/revoke")),
            ("response_types_supported", .array([.string("code")])),
            ("grant_types_supported", .array([.string("authorization_code"), .string("refresh_token")])),
            ("code_challenge_methods_supported", .array([.string("S256")])),
            (
                "token_endpoint_auth_methods_supported",
                .array(["none", "client_secret_basic", "client_secret_post"].map(JSONValue.string))
            ),
            ("revocation_endpoint_auth_methods_supported", .array([.string("none")])),
            ("client_id_metadata_document_supported", .bool(true)),
            ("scopes_supported", .array(scopesSupported.map(JSONValue.string))),
            ("authorization_response_iss_parameter_supported", .bool(true)),
        ])
    }

    // MARK: - The bearer

    /// Who `token` is: one of serve's access tokens, its grant alive, the person's Airtable token fresh (refreshed
    /// once, under the store's lock, when little of its life is left).
    package func verdict(on token: String) async -> Verdict {
        let record: IssuedToken?
        do {
            record = SignInKeys.decode(IssuedToken.self, try store.get(Self.tokenKey(token)))
        } catch { return .unavailable("the sign-in store cannot be read: \(error.message)") }
        guard let record, record.kind == .access || record.kind == .agent else {
            return .refused("not a token this server issued", expired: false)
        }
        let time = now()
        guard record.expires > time else { return .refused("the token has expired", expired: true) }
        guard let grantKey = SignInKeys.unwrap(record.wrapped, by: token) else {
            return .refused("not a token this server issued", expired: false)
        }
        return await verdict(grant: record.grant, key: grantKey)
    }

    /// The person of grant `id`, opened with `key`: their Airtable token fresh (refreshed once, under the store's
    /// lock, when little of its life is left).
    func verdict(grant id: String, key grantKey: [UInt8]) async -> Verdict {
        let time = now()
        let opened: (Grant, AirtableGrantTokens)?
        do { opened = try openGrant(id, key: grantKey) } catch {
            return .unavailable("the sign-in store cannot be read: \(error.message)")
        }
        guard var (grant, tokens) = opened else { return .refused("the grant was revoked", expired: true) }
        if Self.needsRefresh(tokens, at: time) {
            switch await refreshed(grant.id, key: grantKey) {
            case .success(let fresh): (grant, tokens) = fresh
            case .failure(let refusal): return refusal
            }
        }
        if time - grant.lastUsed > 60 {
            grant.lastUsed = time
            try? store.put(Self.grantKey(grant.id), SignInKeys.encode(grant), liveFor: settings.refreshSeconds)
        }
        return .person(Person(token: tokens.access, userID: grant.user, clientID: grant.clientID))
    }

    /// Whether an Airtable access token is near its end: less than a minute or a tenth of its life left, whichever is
    /// shorter.
    static func needsRefresh(_ tokens: AirtableGrantTokens, at time: Double) -> Bool {
        tokens.expires - time < min(60, tokens.life / 10)
    }

    /// The grant refreshed at Airtable once: under the store's lock, read again inside it (another serve may have
    /// refreshed it meanwhile, spending the refresh token we hold). A refresh Airtable refuses ends the grant.
    private func refreshed(_ grantID: String, key: [UInt8]) async -> Result<(Grant, AirtableGrantTokens), Verdict> {
        guard let airtable else { return .failure(.unavailable("no Airtable integration is set up")) }
        let outcome = await store.exclusively("refresh:" + grantID, within: 20) {
            () async -> Result<(Grant, AirtableGrantTokens), Verdict> in
            let opened: (Grant, AirtableGrantTokens)?
            do { opened = try self.openGrant(grantID, key: key) } catch let error as AppError {
                return .failure(.unavailable("the sign-in store cannot be read: \(error.message)"))
            } catch { return .failure(.unavailable("the sign-in store cannot be read")) }
            guard var (grant, tokens) = opened else {
                return .failure(.refused("the grant was revoked", expired: true))
            }
            let time = self.now()
            guard Self.needsRefresh(tokens, at: time) else { return .success((grant, tokens)) }
            switch await airtable.refresh(tokens.refresh) {
            case .success(let answer):
                tokens = AirtableGrantTokens(
                    access: answer.accessToken, refresh: answer.refreshToken, expires: time + answer.expiresIn,
                    life: answer.expiresIn)
                guard let sealed = Self.seal(tokens, key: key, grant: grantID) else {
                    return .failure(.unavailable(Sealing.unavailableReason ?? "the grant could not be sealed"))
                }
                grant.sealed = sealed
                do {
                    try self.store.put(
                        Self.grantKey(grantID), SignInKeys.encode(grant), liveFor: self.settings.refreshSeconds)
                } catch { return .failure(.unavailable("the sign-in store refused the refreshed grant")) }
                return .success((grant, tokens))
            case .failure(let error) where Self.refusesGrant(error):
                // Airtable ended the grant (a refresh token spent or revoked): so does serve; the person signs in again.
                try? self.store.delete(Self.grantKey(grantID))
                return .failure(
                    .refused("Airtable refused to refresh the person's grant: sign in again", expired: true))
            case .failure(let error):
                return .failure(.unavailable("Airtable could not refresh the grant now (\(error.message))"))
            }
        }
        return outcome ?? .failure(.unavailable("another server is refreshing this grant"))
    }

    /// Whether Airtable's answer ends the grant (400/401 `invalid_grant` and the like), rather than a passing fault.
    static func refusesGrant(_ error: AppError) -> Bool {
        if case .http(let status, _) = error { return status == 400 || status == 401 || status == 403 }
        return false
    }

    /// The grant `id` and its Airtable tokens opened with `key`; nil when the grant is gone (revoked, expired).
    func openGrant(_ id: String, key: [UInt8]) throws(AppError) -> (Grant, AirtableGrantTokens)? {
        guard let grant = SignInKeys.decode(Grant.self, try store.get(Self.grantKey(id))),
            let sealed = Data(base64Encoded: grant.sealed),
            let plain = Sealing.open(Array(sealed), key: key, context: "grant " + id),
            let tokens = try? JSONDecoder().decode(AirtableGrantTokens.self, from: Data(plain))
        else { return nil }
        return (grant, tokens)
    }

    static func seal(_ tokens: AirtableGrantTokens, key: [UInt8], grant id: String) -> String? {
        guard let plain = try? JSONEncoder().encode(tokens) else { return nil }
        return Sealing.seal(Array(plain), key: key, context: "grant " + id).map { Data($0).base64EncodedString() }
    }

    // MARK: - Keys in the store

    static func tokenKey(_ token: String) -> String { "signin:token:" + SignInKeys.digest(token) }
    static func spentKey(_ token: String) -> String { "signin:spent:" + SignInKeys.digest(token) }
    static func grantKey(_ id: String) -> String { "signin:grant:" + id }
    static func clientKey(_ id: String) -> String { "signin:client:" + id }
    static func pendingKey(_ id: String) -> String { "signin:pending:" + id }
    static func upstreamKey(_ state: String) -> String { "signin:upstream:" + SignInKeys.digest(state) }

    /// Revokes grant `id`: every token that carries it stops at its next use, on every serve sharing the store.
    package func revokeGrant(_ id: String) throws(AppError) { try store.delete(Self.grantKey(id)) }

    /// Every grant kept now, newest first.
    package func grants() throws(AppError) -> [GrantSummary] {
        try store.entries(prefix: "signin:grant:").compactMap { SignInKeys.decode(Grant.self, $0.value) }
            .map {
                GrantSummary(
                    id: $0.id, user: $0.user, email: $0.email, client: $0.clientID, clientName: $0.clientName,
                    created: $0.created, lastUsed: $0.lastUsed)
            }
            .sorted { $0.created > $1.created }
    }
}

/// A grant as the operator sees it: no token, no secret.
package struct GrantSummary: Sendable, Equatable {
    package var id, user: String
    package var email: String?
    package var client, clientName: String
    package var created, lastUsed: Double
}
