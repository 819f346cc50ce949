#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerHTTP
import TrackerModel

/// The browser's part: `/authorize` checks the client and shows the consent page; the person's decision sends the
/// browser on to Airtable (Allow) or back to the client (Deny); Airtable's callback completes the client's sign-in.
extension SignIn {
    /// Where a step of the browser's part leads.
    package enum BrowserStep: Error, Sendable, Equatable {
        /// The consent page, and the cookie that binds the decision to this browser.
        case consent(html: String, cookie: String)
        /// An error shown, never a redirect: the client or its redirect URI cannot be trusted with one.
        case errorPage(status: Int, String)
        /// On to `location` (the client's redirect URI with a code or an error, or Airtable's page).
        case redirect(String)
        /// On to `location`, with the cookie that binds the next step to this browser.
        case redirectBinding(String, cookie: String)
        /// On to `location` with a new session on `/account` (its cookie).
        case redirectWithSession(String, session: String)
        /// The person's own page (`/account`), and the session cookie to set when one was just made.
        case account(html: String, session: String?)
    }

    /// The cookie that ties a sign-in's steps to one browser.
    package var cookieName: String {
        settings.issuer.hasPrefix("https://") ? "__Host-tracker_signin" : "tracker_signin"
    }

    /// `GET /authorize`.
    package func authorize(_ query: [(String, String)]) -> BrowserStep {
        func single(_ name: String) -> String? { FormEncoding.single(name, in: query) }
        guard let clientID = single("client_id") else {
            return .errorPage(status: 400, "This sign-in names no client. Start again from your assistant.")
        }
        let client: SignInClient
        switch lookUpClient(clientID) {
        case .success(let found): client = found
        case .failure(let error):
            let why =
                clientID.lowercased().hasPrefix("https://")
                ? error.message : "it names a client this server does not know"
            return .errorPage(status: 400, "This sign-in cannot go on: \(why). Start again from your assistant.")
        }
        guard let redirectURI = single("redirect_uri"), client.redirectURIs.contains(redirectURI) else {
            return .errorPage(
                status: 400,
                "The address this sign-in would return to is not one the client registered, so it is not used.")
        }
        let state = single("state") ?? ""
        func back(_ error: String, _ description: String) -> BrowserStep {
            .redirect(
                Self.appending(
                    [("error", error), ("error_description", description), ("state", state), ("iss", settings.issuer)],
                    to: redirectURI))
        }
        guard single("response_type") == "code" else { return back("unsupported_response_type", "only code") }
        guard !state.isEmpty else { return back("invalid_request", "state is required") }
        guard let challenge = single("code_challenge"), (43...128).contains(challenge.count) else {
            return back("invalid_request", "a PKCE code_challenge is required")
        }
        guard single("code_challenge_method") == "S256" else {
            return back("invalid_request", "code_challenge_method must be S256")
        }
        let resource = single("resource") ?? settings.resource
        guard resource == settings.resource else {
            return back("invalid_target", "the resource is \(settings.resource)")
        }
        let asked = (single("scope") ?? scopesSupported.joined(separator: " ")).split(separator: " ").map(String.init)
        guard asked.allSatisfy({ ["tracker:read", "tracker:write"].contains($0) }) else {
            return back("invalid_scope", "the scopes are tracker:read and tracker:write")
        }
        let scope = scopesSupported.filter { asked.contains($0) || asked.isEmpty }.joined(separator: " ")
        if let unavailable = settings.unavailable {
            return .errorPage(status: 503, "Nobody can sign in to this server yet: \(unavailable).")
        }
        let (requestID, csrf, browser) = (SignInKeys.newSecret(), SignInKeys.newSecret(), SignInKeys.newSecret())
        let pending = PendingSignIn(
            clientID: client.id, clientName: client.name, redirectURI: redirectURI, state: state, challenge: challenge,
            resource: resource, scope: scope, csrfDigest: SignInKeys.digest(csrf),
            browserDigest: SignInKeys.digest(browser))
        do {
            try store.put(Self.pendingKey(requestID), SignInKeys.encode(pending), liveFor: settings.codeSeconds)
        } catch {
            return .errorPage(status: 503, "The sign-in could not be kept now (\(error.message)). Try again shortly.")
        }
        let page = SignInPages.consent(
            client: client.name, redirectHost: Self.host(of: redirectURI), scope: scope, base: settings.baseName,
            request: requestID, csrf: csrf)
        return .consent(html: page, cookie: browser)
    }

    /// `POST /authorize`: the person's decision on the consent page (`decision` allow or deny), from the browser the
    /// page was shown in (`cookie`), with the page's CSRF token. The sign-in under way is spent either way.
    package func decide(_ form: [(String, String)], cookie: String?) -> BrowserStep {
        let refused = BrowserStep.errorPage(
            status: 400, "This consent page has expired or was already answered. Start again from your assistant.")
        guard let requestID = FormEncoding.single("request", in: form),
            let pending = SignInKeys.decode(PendingSignIn.self, try? store.take(Self.pendingKey(requestID)))
        else { return refused }
        guard let csrf = FormEncoding.single("csrf", in: form), let cookie,
            Digest.constantTimeEqual(SignInKeys.digest(csrf), pending.csrfDigest),
            Digest.constantTimeEqual(SignInKeys.digest(cookie), pending.browserDigest)
        else { return refused }
        guard FormEncoding.single("decision", in: form) == "allow" else {
            return .redirect(
                Self.appending(
                    [("error", "access_denied"), ("state", pending.state), ("iss", settings.issuer)],
                    to: pending.redirectURI))
        }
        guard let airtable else { return .errorPage(status: 503, "Nobody can sign in to this server yet.") }
        var approved = pending
        let verifier = SignInKeys.newSecret()
        approved.verifier = verifier
        let state = SignInKeys.newSecret()
        do {
            try store.put(Self.upstreamKey(state), SignInKeys.encode(approved), liveFor: settings.codeSeconds)
        } catch { return .errorPage(status: 503, "The sign-in could not be kept now. Try again shortly.") }
        return .redirect(
            airtable.authorizeURL(state, SignInKeys.challenge(of: verifier), airtableScopes, airtableRedirectURI))
    }

    /// Where Airtable sends the person back: the redirect URI the operator registered with the integration.
    package var airtableRedirectURI: String { settings.issuer + "/oauth/airtable/callback" }

    /// The scopes serve asks Airtable for: what the tools need, and the email the operator's list names people by.
    var airtableScopes: [String] {
        ["data.records:read"] + (settings.readOnly ? [] : ["data.records:write"])
            + ["data.recordComments:read"] + (settings.readOnly ? [] : ["data.recordComments:write"])
            + ["schema.bases:read", "user.email:read"]
    }

    /// `GET /oauth/airtable/callback`: Airtable's answer. Its state is single-use (a replayed callback is refused);
    /// the code is exchanged, the person named, the grant checked against the base and kept, and the client's own
    /// code sent to its redirect URI.
    package func airtableCallback(_ query: [(String, String)], cookie: String?) async -> BrowserStep {
        guard let state = FormEncoding.single("state", in: query),
            let pending = SignInKeys.decode(PendingSignIn.self, try? store.take(Self.upstreamKey(state))),
            let verifier = pending.verifier
        else {
            return .errorPage(
                status: 400,
                "This answer from Airtable was already used or has expired. Start again from your assistant.")
        }
        guard let cookie, Digest.constantTimeEqual(SignInKeys.digest(cookie), pending.browserDigest) else {
            return .errorPage(
                status: 400, "This answer from Airtable reached another browser than the sign-in began in.")
        }
        func back(_ pairs: [(String, String)]) -> BrowserStep {
            .redirect(
                Self.appending(pairs + [("state", pending.state), ("iss", settings.issuer)], to: pending.redirectURI))
        }
        guard let airtable else { return .errorPage(status: 503, "Nobody can sign in to this server yet.") }
        guard let code = FormEncoding.single("code", in: query) else {
            if pending.purpose != nil {
                return .errorPage(status: 403, "Airtable was not granted: nothing was signed in.")
            }
            return back([("error", "access_denied"), ("error_description", "Airtable was not granted")])
        }
        let person: (tokens: AirtableGrantTokens, who: Collaborator, id: String)
        switch await airtablePerson(code: code, verifier: verifier, airtable) {
        case .success(let found): person = found
        case .failure(let page): return page
        }
        switch pending.purpose {
        case "account":
            return startSession(for: person, returnTo: pending.returnTo)
        case "agent":
            guard pending.accountUser == person.id else {
                return .errorPage(status: 403, "You granted Airtable as another person than the one signed in here.")
            }
            return agentToken(person, name: pending.clientName)
        default: break
        }
        let grantKey = Sealing.randomBytes(32)
        let grantID: String
        do {
            grantID = try keepGrant(
                person.tokens, key: grantKey, user: person.id, email: person.who.email, clientID: pending.clientID,
                clientName: pending.clientName, scope: pending.scope)
        } catch { return .errorPage(status: 503, "The grant could not be kept now (\(error.message)). Try again.") }
        let ownCode = SignInKeys.newSecret()
        guard let wrapped = SignInKeys.wrap(grantKey, by: ownCode) else {
            return .errorPage(status: 500, "The grant could not be sealed.")
        }
        let issued = IssuedToken(
            grant: grantID, kind: .code, wrapped: wrapped, clientID: pending.clientID,
            expires: now() + settings.codeSeconds,
            redirectURI: pending.redirectURI, challenge: pending.challenge, resource: pending.resource)
        do {
            try store.put(Self.tokenKey(ownCode), SignInKeys.encode(issued), liveFor: settings.codeSeconds)
        } catch { return .errorPage(status: 503, "The grant could not be kept now (\(error.message)). Try again.") }
        return back([("code", ownCode)])
    }

    /// Airtable's code exchanged for the person's tokens, the person named (`whoami`), and the grant shown to reach
    /// the base (one read); an error page for the first of these that fails.
    func airtablePerson(code: String, verifier: String, _ airtable: AirtableGrantor) async -> Result<
        (tokens: AirtableGrantTokens, who: Collaborator, id: String), BrowserStep
    > {
        let tokens: AirtableTokenAnswerKept
        switch await airtable.exchange(code, verifier, airtableRedirectURI) {
        case .success(let answer): tokens = AirtableTokenAnswerKept(answer, at: now())
        case .failure(let error):
            return .failure(
                .errorPage(status: 502, "Airtable did not complete the sign-in: \(error.message). Start again."))
        }
        let person: Collaborator
        switch await airtable.whoami(tokens.kept.access) {
        case .success(let who): person = who
        case .failure(let error):
            return .failure(.errorPage(status: 502, "Airtable did not say who you are: \(error.message)."))
        }
        if case .failure = await airtable.reachesBase(tokens.kept.access) {
            return .failure(
                .errorPage(
                    status: 403,
                    "Your Airtable grant does not reach this server's base (\(settings.baseName)). Sign in again and grant it that base."
                ))
        }
        guard let id = person.id else { return .failure(.errorPage(status: 502, "Airtable did not say who you are.")) }
        return .success((tokens.kept, person, id))
    }

    /// A new grant holding the person's Airtable tokens sealed under `key`: its id.
    func keepGrant(
        _ tokens: AirtableGrantTokens, key: [UInt8], user: String, email: String?, clientID: String, clientName: String,
        scope: String
    ) throws(AppError) -> String {
        let grantID = "grt" + SignInKeys.newSecret().prefix(20).filter { $0.isLetter || $0.isNumber }
        guard let sealed = Self.seal(tokens, key: key, grant: grantID) else {
            throw .missingSupport(Sealing.unavailableReason ?? "the grant could not be sealed")
        }
        let time = now()
        let grant = Grant(
            id: grantID, user: user, email: email, clientID: clientID, clientName: clientName, scope: scope,
            created: time, lastUsed: time, sealed: sealed)
        try store.put(Self.grantKey(grantID), SignInKeys.encode(grant), liveFor: settings.refreshSeconds)
        return grantID
    }

    /// `uri` with `pairs` added to its query.
    static func appending(_ pairs: [(String, String)], to uri: String) -> String {
        uri + (uri.contains("?") ? "&" : "?") + FormEncoding.encode(pairs.filter { !$0.1.isEmpty || $0.0 == "code" })
    }

    /// The host (and port) of a URI, as the consent page names it.
    static func host(of uri: String) -> String {
        guard let schemeEnd = uri.firstRange(of: "://") else { return uri }
        let rest = uri[schemeEnd.upperBound...]
        return String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}

/// Airtable's answer as serve keeps it: when the access token ends, from when it was given.
struct AirtableTokenAnswerKept {
    var kept: AirtableGrantTokens

    init(_ answer: AirtableTokenAnswer, at time: Double) {
        kept = AirtableGrantTokens(
            access: answer.accessToken, refresh: answer.refreshToken, expires: time + answer.expiresIn,
            life: answer.expiresIn)
    }
}
