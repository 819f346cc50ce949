#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerHTTP
import TrackerModel

/// A person signing in to `tracker serve` as a browser and an MCP client do, against this fake's Airtable OAuth, over
/// loopback HTTP: register, `/authorize`, the consent page's Allow, the fake's grant page, serve's callback, `/token`.
/// The tests' and the benchmark's; each step is its own, so a test can break one.
public struct ServeSignInClient: Sendable {
    /// What went wrong at a step: the step and serve's answer.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One answer: status, headers by lower-case name, body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue? { try? JSONParser.parse(Data(body)) }
    }

    /// What a client holds once signed in.
    public struct Tokens: Sendable {
        public var access: String
        public var refresh: String
        public var client: String
    }

    public let servePort: Int
    public var redirectURI = "http://127.0.0.1:9/callback"

    public init(servePort: Int) { self.servePort = servePort }

    /// The secrets file's `"serve"` member naming `fake`'s OAuth integration (`more`: further members, comma first).
    public static func serveSetting(_ fake: FakeAirtable, more: String = "") -> String {
        let integration = fake.options.oauth ?? FakeOAuthIntegration()
        let secret = integration.clientSecret.map { #", "clientSecret": "\#($0)""# } ?? ""
        return
            #""serve": {"airtableOAuth": {"clientId": "\#(integration.clientID)"\#(secret), "url": "\#(fake.endpoint)"}\#(more)}"#
    }

    /// A PKCE verifier and its S256 challenge.
    public static func pkce() -> (verifier: String, challenge: String) {
        let verifier = Digest.randomHex(bytes: 32)
        return (verifier, FakeAirtable.challenge(of: verifier))
    }

    /// One request to `port` on a connection of its own.
    public static func request(
        port: Int, _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []
    ) -> Answer {
        guard let connection = LoopbackConnection(port: port, timeout: 30) else {
            return Answer(status: 0, headers: [:], body: [])
        }
        connection.send(
            LoopbackConnection.head(method, target, port: port, headers: headers, bodyLength: body.count, closing: true)
                + body)
        let answer = connection.readAnswer()
        return Answer(status: answer.status, headers: answer.headers, body: answer.body)
    }

    func expect(_ answer: Answer, _ status: Int, _ step: String) throws(Failure) -> Answer {
        guard answer.status == status else {
            throw Failure(description: "\(step): \(answer.status) \(answer.text.prefix(300))")
        }
        return answer
    }

    /// `POST /register`: a public client's id.
    public func register(name: String = "Test client") throws(Failure) -> String {
        let body = JSONValue.object([
            ("client_name", .string(name)), ("redirect_uris", .array([.string(redirectURI)])),
        ]).serialized()
        let answer = try expect(
            Self.request(
                port: servePort, "POST", "/register", headers: ["Content-Type": "application/json"],
                body: Array(body.utf8)),
            201, "register")
        guard let id = answer.json?["client_id"]?.stringValue else {
            throw Failure(description: "register: no client_id")
        }
        return id
    }

    /// `GET /authorize`'s answer for `client`.
    public func authorize(
        client: String, challenge: String, state: String = "client-state", extra: [(String, String)] = []
    )
        -> Answer
    {
        let query = FormEncoding.encode(
            [
                ("response_type", "code"), ("client_id", client), ("redirect_uri", redirectURI), ("state", state),
                ("code_challenge", challenge), ("code_challenge_method", "S256"),
                ("resource", "http://127.0.0.1:\(servePort)/mcp"),
            ].filter { name, _ in !extra.contains { $0.0 == name } } + extra.filter { !$0.1.isEmpty })
        return Self.request(port: servePort, "GET", "/authorize?" + query)
    }

    /// The consent page for `client`: the page, the browser's cookie, and the form's request and CSRF values.
    public func consent(client: String, challenge: String) throws(Failure) -> (
        page: Answer, cookie: String, request: String, csrf: String
    ) {
        let page = try expect(authorize(client: client, challenge: challenge), 200, "the consent page")
        guard let cookie = page.headers["set-cookie"]?.split(separator: ";").first.map(String.init) else {
            throw Failure(description: "the consent page set no cookie")
        }
        return (page, cookie, try Self.field("request", in: page.text), try Self.field("csrf", in: page.text))
    }

    /// The value of the hidden input `name` in `html`.
    public static func field(_ name: String, in html: String) throws(Failure) -> String {
        let marker = "name=\"\(name)\" value=\""
        guard let start = html.firstRange(of: marker)?.upperBound else {
            throw Failure(description: "no \(name) in the page")
        }
        return String(html[start...].prefix { $0 != "\"" })
    }

    /// The consent page's form posted (`decision` allow or deny) with `cookie`.
    public func decide(request: String, csrf: String, cookie: String?, decision: String = "allow") -> Answer {
        var headers = ["Content-Type": "application/x-www-form-urlencoded"]
        if let cookie { headers["Cookie"] = cookie }
        let body = FormEncoding.encode([("request", request), ("csrf", csrf), ("decision", decision)])
        return Self.request(port: servePort, "POST", "/authorize", headers: headers, body: Array(body.utf8))
    }

    /// Allow on the consent page, then `user` grants at the fake's Airtable: serve's callback URL and the cookie.
    public func allowAndGrant(client: String, challenge: String, as user: String) throws(Failure) -> (
        callback: String, cookie: String
    ) {
        let (_, cookie, request, csrf) = try consent(client: client, challenge: challenge)
        let decided = try expect(decide(request: request, csrf: csrf, cookie: cookie), 302, "Allow")
        guard let location = decided.headers["location"], let query = location.split(separator: "?", maxSplits: 1).last,
            let port = Self.port(of: location), location.contains("/oauth2/v1/authorize?")
        else { throw Failure(description: "Allow did not lead to Airtable: \(decided.headers)") }
        let pairs = FormEncoding.pairs(String(query)) + [("user", user)]
        let granted = try expect(
            Self.request(
                port: port, "POST", "/oauth2/v1/authorize",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(FormEncoding.encode(pairs).utf8)),
            302, "the grant at Airtable")
        guard let callback = granted.headers["location"] else {
            throw Failure(description: "Airtable sent no one back")
        }
        return (callback, cookie)
    }

    /// serve's answer to Airtable's redirect, brought by the browser with `cookie`.
    public func callback(_ url: String, cookie: String?) -> Answer {
        Self.request(port: servePort, "GET", Self.target(url), headers: cookie.map { ["Cookie": $0] } ?? [:])
    }

    /// The code serve's redirect carries to the client.
    public static func code(from answer: Answer) throws(Failure) -> String {
        guard let location = answer.headers["location"], let query = location.split(separator: "?", maxSplits: 1).last,
            let code = FormEncoding.single("code", in: FormEncoding.pairs(String(query)))
        else { throw Failure(description: "no code: \(answer.status) \(answer.headers) \(answer.text.prefix(200))") }
        return code
    }

    /// `POST /token` with `pairs`.
    public func token(_ pairs: [(String, String)], headers: [String: String] = [:]) -> Answer {
        var all = ["Content-Type": "application/x-www-form-urlencoded"]
        all.merge(headers) { $1 }
        return Self.request(
            port: servePort, "POST", "/token", headers: all, body: Array(FormEncoding.encode(pairs).utf8))
    }

    /// The whole sign-in of `user` through a client of its own: its tokens.
    public func signIn(as user: String, clientName: String = "Test client") throws(Failure) -> Tokens {
        let client = try register(name: clientName)
        let (verifier, challenge) = Self.pkce()
        let (callback, cookie) = try allowAndGrant(client: client, challenge: challenge, as: user)
        let code = try Self.code(from: try expect(self.callback(callback, cookie: cookie), 302, "the callback"))
        let answer = try expect(
            token([
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier), ("client_id", client),
            ]), 200, "the token")
        guard let access = answer.json?["access_token"]?.stringValue,
            let refresh = answer.json?["refresh_token"]?.stringValue
        else { throw Failure(description: "the token endpoint gave no tokens") }
        return Tokens(access: access, refresh: refresh, client: client)
    }

    /// The path and query of a URL.
    public static func target(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }

    static func port(of url: String) -> Int? {
        guard let scheme = url.firstRange(of: "://") else { return nil }
        let host = url[scheme.upperBound...].prefix { $0 != "/" }
        return host.split(separator: ":").last.flatMap { Int($0) }
    }
}
