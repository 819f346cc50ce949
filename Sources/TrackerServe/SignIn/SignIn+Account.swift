#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerMCP
import TrackerModel

/// `/account`: a person signed in through Airtable the same way (a session of 12 hours) sees their grants, revokes
/// any, and makes a token for an agent that cannot open a browser: one of serve's own tokens, bound to an Airtable
/// grant of its own, shown once.
extension SignIn {
    /// The session cookie's name (`__Host-` where the issuer is https, so no other site's path or domain can set it).
    package var sessionCookieName: String {
        settings.issuer.hasPrefix("https://") ? "__Host-tracker_account" : "tracker_account"
    }

    static let sessionSeconds = 12 * 3600.0
    /// An agent's token lives this long (revocable on `/account` and by the operator at any time).
    static let agentSeconds = 90 * 86_400.0

    static func sessionKey(_ session: String) -> String { "signin:session:" + SignInKeys.digest(session) }

    /// `GET /account`: the page for a signed-in person, else the way to Airtable's sign-in.
    package func account(session: String?) -> BrowserStep {
        if let session, let kept = SignInKeys.decode(AccountSession.self, try? store.get(Self.sessionKey(session))) {
            return .account(html: accountPage(kept, newToken: nil), session: nil)
        }
        return signIn(returningTo: nil)
    }

    /// On to Airtable's sign-in for the person's own pages, then back to `path` (else `/account`).
    package func signIn(returningTo path: String?) -> BrowserStep {
        var pending = PendingSignIn(
            clientID: "", clientName: "", redirectURI: "", state: "", challenge: "", resource: "", scope: "",
            csrfDigest: "", browserDigest: "", verifier: nil, purpose: "account")
        pending.returnTo = path
        return toAirtable(pending)
    }

    /// The person signed in on this browser (its session cookie), with their Airtable token fresh from the session's
    /// own grant; nil when not signed in, or signed in before sessions kept a grant (sign in again).
    package func pagePerson(session: String?) async -> (person: Person, csrf: String)? {
        guard let session, let kept = SignInKeys.decode(AccountSession.self, try? store.get(Self.sessionKey(session))),
            let grant = kept.grant, let wrapped = kept.wrapped, let key = SignInKeys.unwrap(wrapped, by: session),
            case .person(let person) = await verdict(grant: grant, key: key)
        else { return nil }
        return (person, kept.csrf)
    }

    /// `POST /account`: Revoke (`grant`) or New token, from the signed-in person's page (its CSRF token).
    package func accountAction(_ form: [(String, String)], session: String?) -> BrowserStep {
        guard let session, let kept = SignInKeys.decode(AccountSession.self, try? store.get(Self.sessionKey(session))),
            let csrf = FormEncoding.single("csrf", in: form), Digest.constantTimeEqual(csrf, kept.csrf)
        else { return .errorPage(status: 403, "This page has expired: open /account again.") }
        switch FormEncoding.single("action", in: form) {
        case "revoke":
            guard let id = FormEncoding.single("grant", in: form), let grants = try? grants(),
                grants.contains(where: { $0.id == id && $0.user == kept.user })
            else { return .errorPage(status: 404, "No such grant of yours.") }
            try? revokeGrant(id)
            return .redirect(settings.issuer + "/account")
        case "new-token":
            // A grant of its own at Airtable: the person grants once more (one click while signed in there).
            var pending = PendingSignIn(
                clientID: "agent", clientName: "", redirectURI: "", state: "", challenge: "", resource: "", scope: "",
                csrfDigest: "", browserDigest: "", verifier: nil, purpose: "agent")
            pending.accountUser = kept.user
            pending.clientName =
                FormEncoding.single("name", in: form).map { String($0.prefix(Self.longestName)) }
                .flatMap { $0.isEmpty ? nil : $0 } ?? "An agent's token"
            return toAirtable(pending)
        default: return .errorPage(status: 400, "Unknown action.")
        }
    }

    /// On to Airtable's page for `pending` (serve's own PKCE and state, bound to this browser by a cookie).
    private func toAirtable(_ pending: PendingSignIn) -> BrowserStep {
        guard let airtable, settings.unavailable == nil else {
            return .errorPage(status: 503, "Nobody can sign in to this server yet: \(settings.unavailable ?? "").")
        }
        var pending = pending
        let (verifier, state, browser) = (SignInKeys.newSecret(), SignInKeys.newSecret(), SignInKeys.newSecret())
        pending.verifier = verifier
        pending.browserDigest = SignInKeys.digest(browser)
        pending.scope = scopesSupported.joined(separator: " ")
        do {
            try store.put(Self.upstreamKey(state), SignInKeys.encode(pending), liveFor: settings.codeSeconds)
        } catch { return .errorPage(status: 503, "The sign-in could not be kept now. Try again shortly.") }
        return .redirectBinding(
            airtable.authorizeURL(state, SignInKeys.challenge(of: verifier), airtableScopes, airtableRedirectURI),
            cookie: browser)
    }

    /// The session made once Airtable named the person: a grant of its own (so its pages write as the person), the
    /// page it was for (the account page, or an approval's), and its cookie.
    func startSession(
        for person: (tokens: AirtableGrantTokens, who: Collaborator, id: String), returnTo: String?
    ) -> BrowserStep {
        let session: String
        do { (session, _) = try keepSession(for: person) } catch {
            return .errorPage(status: 503, "The session could not be kept now. Try again shortly.")
        }
        // Only a path of this server's own: the sign-in never sends a browser elsewhere.
        let path = returnTo.flatMap { $0.hasPrefix("/approve/") && !$0.contains("//") ? $0 : nil } ?? "/account"
        return .redirectWithSession(settings.issuer + path, session: session)
    }

    /// A new session for `person` (its cookie's value, and what is kept of it): with a grant of its own, whose key
    /// only the cookie unwraps, so the session's pages write as the person.
    private func keepSession(for person: (tokens: AirtableGrantTokens, who: Collaborator, id: String)) throws(AppError)
        -> (String, AccountSession)
    {
        let session = SignInKeys.newSecret()
        var kept = AccountSession(user: person.id, email: person.who.email, csrf: SignInKeys.newSecret())
        let key = Sealing.randomBytes(32)
        kept.grant = try keepGrant(
            person.tokens, key: key, user: person.id, email: person.who.email, clientID: "account",
            clientName: "Signed in on this server's pages", scope: scopesSupported.joined(separator: " "))
        kept.wrapped = SignInKeys.wrap(key, by: session)
        try store.put(Self.sessionKey(session), SignInKeys.encode(kept), liveFor: Self.sessionSeconds)
        return (session, kept)
    }

    /// A token for an agent, on a grant of its own: shown once on the page, kept only as a digest.
    func agentToken(_ person: (tokens: AirtableGrantTokens, who: Collaborator, id: String), name: String) -> BrowserStep
    {
        let key = Sealing.randomBytes(32)
        let token = SignInKeys.newSecret()
        do {
            let grant = try keepGrant(
                person.tokens, key: key, user: person.id, email: person.who.email, clientID: "agent",
                clientName: name, scope: scopesSupported.joined(separator: " "))
            guard let wrapped = SignInKeys.wrap(key, by: token) else { throw AppError.missingSupport("sealing") }
            let issued = IssuedToken(
                grant: grant, kind: .agent, wrapped: wrapped, clientID: "agent", expires: now() + Self.agentSeconds)
            try store.put(Self.tokenKey(token), SignInKeys.encode(issued), liveFor: Self.agentSeconds)
        } catch { return .errorPage(status: 503, "The token could not be kept now. Try again.") }
        guard let (session, kept) = try? keepSession(for: person) else {
            return .errorPage(status: 503, "The session could not be kept now. Try again shortly.")
        }
        return .account(html: accountPage(kept, newToken: token), session: session)
    }

    private func accountPage(_ session: AccountSession, newToken: String?) -> String {
        let mine = ((try? grants()) ?? []).filter { $0.user == session.user }
        return SignInPages.account(
            person: session.email ?? session.user, grants: mine, csrf: session.csrf, newToken: newToken,
            mcpURL: settings.resource)
    }
}
