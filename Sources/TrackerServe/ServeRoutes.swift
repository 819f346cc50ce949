#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerModel

/// One of serve's paths: what answers it, and the label its requests are counted under in `/metrics`.
struct ServeRoute: Sendable {
    let path: String
    let label: String
    let handle: @Sendable (ServeFace, ServedRequest, inout LogRecord) -> HTTPAction

    init(
        _ path: String, label: String? = nil,
        _ handle: @escaping @Sendable (ServeFace, ServedRequest, inout LogRecord) -> HTTPAction
    ) {
        (self.path, self.label, self.handle) = (path, label ?? path, handle)
    }
}

extension ServeFace {
    /// Every path serve answers: the only list (an unknown path is 404, counted as "other").
    static let routes: [ServeRoute] = [
        ServeRoute("/mcp") { face, request, record in face.mcp(request, &record) },
        ServeRoute("/healthz") { face, _, _ in face.health() },
        ServeRoute("/metrics") { face, _, _ in face.metricsPage() },
        ServeRoute("/airtable/ping") { face, request, _ in face.ping(request) },
        ServeRoute("/.well-known/oauth-protected-resource") { face, _, _ in
            MCPOverHTTP.json(200, face.host.signIn.resourceMetadata)
        },
        ServeRoute("/.well-known/oauth-protected-resource/mcp", label: "/.well-known/oauth-protected-resource") {
            face, _, _ in MCPOverHTTP.json(200, face.host.signIn.resourceMetadata)
        },
        ServeRoute("/.well-known/oauth-authorization-server") { face, _, _ in
            MCPOverHTTP.json(200, face.host.signIn.authorizationServerMetadata)
        },
        ServeRoute("/authorize") { face, request, _ in face.authorize(request) },
        ServeRoute("/oauth/airtable/callback") { face, request, _ in face.airtableCallback(request) },
        ServeRoute("/token") { face, request, _ in face.token(request) },
        ServeRoute("/register") { face, request, _ in face.register(request) },
        ServeRoute("/revoke") { face, request, _ in face.revoke(request) },
        ServeRoute("/account") { face, request, _ in face.account(request) },
    ]

    func health() -> HTTPAction {
        let why = Blocking.wait { [host] () async -> String? in
            if let unavailable = host.signIn.settings.unavailable { return "nobody can sign in: " + unavailable }
            return await host.health()
        }
        return why.map { MCPOverHTTP.plain(503, "unavailable: " + $0) } ?? MCPOverHTTP.plain(200, "ok")
    }

    func metricsPage() -> HTTPAction {
        let sessions = [
            "# HELP tracker_serve_sessions_open MCP sessions (2025-11-25's Mcp-Session-Id) open now.",
            "# TYPE tracker_serve_sessions_open gauge", "tracker_serve_sessions_open \(mcp.sessionsOpen)",
        ]
        let text = metrics.text(more: sessions + host.figures())
        return .respond(
            status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"], body: Data(text.utf8))
    }

    /// Airtable's, not a person's: no bearer, the MAC instead. A ping refused changes nothing.
    func ping(_ request: ServedRequest) -> HTTPAction {
        guard request.method == "POST" else { return MCPOverHTTP.plain(405, "Method Not Allowed") }
        guard host.pings.verifies(Array(request.body), mac: request.header("x-airtable-content-mac")) else {
            return MCPOverHTTP.plain(401, "Unauthorized: the ping's X-Airtable-Content-MAC does not match")
        }
        host.pinged()
        return .respond(status: 204, headers: [:], body: Data())
    }

    // MARK: - The sign-in

    func authorize(_ request: ServedRequest) -> HTTPAction {
        switch request.method {
        case "GET": return browser(host.signIn.authorize(FormEncoding.pairs(request.query)))
        case "POST":
            return browser(host.signIn.decide(FormEncoding.pairs(request.body), cookie: cookie(request)))
        default: return MCPOverHTTP.plain(405, "Method Not Allowed")
        }
    }

    func account(_ request: ServedRequest) -> HTTPAction {
        let session = cookie(request, named: host.signIn.sessionCookieName)
        switch request.method {
        case "GET": return browser(host.signIn.account(session: session))
        case "POST": return browser(host.signIn.accountAction(FormEncoding.pairs(request.body), session: session))
        default: return MCPOverHTTP.plain(405, "Method Not Allowed")
        }
    }

    func airtableCallback(_ request: ServedRequest) -> HTTPAction {
        guard request.method == "GET" else { return MCPOverHTTP.plain(405, "Method Not Allowed") }
        let query = FormEncoding.pairs(request.query)
        let cookie = cookie(request)
        return browser(Blocking.wait { [host] in await host.signIn.airtableCallback(query, cookie: cookie) })
    }

    func token(_ request: ServedRequest) -> HTTPAction {
        guard request.method == "POST" else { return MCPOverHTTP.plain(405, "Method Not Allowed") }
        let form = FormEncoding.pairs(request.body)
        let authorization = request.header("authorization")
        let answer = Blocking.wait { [host] in await host.signIn.token(form, authorization: authorization) }
        return oauthJSON(answer, success: 200)
    }

    func register(_ request: ServedRequest) -> HTTPAction {
        guard request.method == "POST" else { return MCPOverHTTP.plain(405, "Method Not Allowed") }
        return oauthJSON(host.signIn.register(request.body, from: request.peer), success: 201)
    }

    func revoke(_ request: ServedRequest) -> HTTPAction {
        guard request.method == "POST" else { return MCPOverHTTP.plain(405, "Method Not Allowed") }
        host.signIn.revoke(FormEncoding.pairs(request.body))
        return .respond(status: 200, headers: ["Cache-Control": "no-store"], body: Data())
    }

    /// An OAuth endpoint's JSON answer: never cached (it carries tokens).
    private func oauthJSON(_ answer: Result<JSONValue, SignIn.OAuthRefusal>, success: Int) -> HTTPAction {
        let (status, body) =
            switch answer {
            case .success(let body): (success, body)
            case .failure(let refusal): (refusal.status, refusal.body)
            }
        var headers = ["Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"]
        if status == 401 { headers["WWW-Authenticate"] = "Basic realm=\"tracker\"" }
        return .respond(status: status, headers: headers, body: Data(body.serialized().utf8))
    }

    /// A step of the browser's part as HTTP: a page (the consent page sets the cookie that binds the decision to this
    /// browser) or a redirect.
    func browser(_ step: SignIn.BrowserStep) -> HTTPAction {
        switch step {
        case .consent(let html, let cookie):
            var headers = SignInPages.headers
            headers["Set-Cookie"] = cookieHeader(host.signIn.cookieName, cookie, seconds: 900)
            return .respond(status: 200, headers: headers, body: Data(html.utf8))
        case .errorPage(let status, let text):
            return .respond(status: status, headers: SignInPages.headers, body: Data(SignInPages.error(text).utf8))
        case .redirect(let location):
            return .respond(
                status: 302,
                headers: ["Location": location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"],
                body: Data())
        case .redirectBinding(let location, let cookie):
            return .respond(
                status: 302,
                headers: [
                    "Location": location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                    "Set-Cookie": cookieHeader(host.signIn.cookieName, cookie, seconds: 900),
                ], body: Data())
        case .redirectWithSession(let location, let session):
            return .respond(
                status: 302,
                headers: [
                    "Location": location, "Cache-Control": "no-store",
                    "Set-Cookie": cookieHeader(
                        host.signIn.sessionCookieName, session, seconds: Int(SignIn.sessionSeconds)),
                ], body: Data())
        case .account(let html, let session):
            var headers = SignInPages.headers
            if let session {
                headers["Set-Cookie"] = cookieHeader(
                    host.signIn.sessionCookieName, session, seconds: Int(SignIn.sessionSeconds))
            }
            return .respond(status: 200, headers: headers, body: Data(html.utf8))
        }
    }

    /// A cookie for this server only: HttpOnly, SameSite=Lax, Secure where the issuer is https.
    private func cookieHeader(_ name: String, _ value: String, seconds: Int) -> String {
        let secure = host.signIn.settings.issuer.hasPrefix("https://") ? "; Secure" : ""
        return "\(name)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(seconds)\(secure)"
    }

    /// The sign-in cookie the browser sent, if any.
    private func cookie(_ request: ServedRequest) -> String? { cookie(request, named: host.signIn.cookieName) }

    /// The cookie `named` the browser sent, if any.
    func cookie(_ request: ServedRequest, named cookieName: String) -> String? {
        guard let header = request.header("cookie") else { return nil }
        let name = cookieName + "="
        return header.split(separator: ";").map { $0.trimmingWhitespace() }.first { $0.hasPrefix(name) }
            .map { String($0.dropFirst(name.count)) }
    }
}
