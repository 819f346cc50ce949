import Foundation
import Testing

@testable import FakeAirtable
@testable import TrackerAPI
@testable import TrackerHTTP
@testable import TrackerModel
@testable import TrackerServe
@testable import TrackerSystem

/// serve's sign-in, its rules one by one, through an in-memory store, a clock the test moves and an Airtable that
/// counts what it is asked: each test breaks when its rule is broken.
struct SignInTests {
    /// A stand-in for Airtable's OAuth: codes it handed out, tokens it issued, refreshes it was asked for.
    final class Upstream: Sendable {
        let refreshes = Locked(0)
        let refusing = Locked(false)
        let life = Locked(3600.0)
        let issued = Locked([String]())

        func answer() -> AirtableTokenAnswer {
            let access = "oaaUPSTREAM" + Digest.randomHex(bytes: 12)
            let refresh = "oarUPSTREAM" + Digest.randomHex(bytes: 12)
            issued.withLock { $0 += [access, refresh] }
            return AirtableTokenAnswer(
                accessToken: access, refreshToken: refresh, expiresIn: life.withLock { $0 }, scope: "")
        }

        var grantor: AirtableGrantor {
            AirtableGrantor(
                authorizeURL: { state, challenge, _, redirect in
                    "https://airtable.test/oauth2/v1/authorize?state=\(state)&code_challenge=\(challenge)&redirect_uri=\(redirect)"
                },
                exchange: { _, _, _ in .success(self.answer()) },
                refresh: { _ in
                    self.refreshes.withLock { $0 += 1 }
                    await MonotonicClock.sleep(0.05)
                    if self.refusing.withLock({ $0 }) {
                        return .failure(.http(status: 400, ServiceError(type: "invalid_grant", message: nil)))
                    }
                    return .success(self.answer())
                },
                whoami: { _ in .success(Collaborator(id: "usrPERSON0000001", email: "person@example.com")) },
                reachesBase: { _ in .success(()) })
        }
    }

    final class Clock: Sendable {
        let time = Locked(1_800_000_000.0)
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    let upstream = Upstream()
    let clock = Clock()
    let store: FileSignInStore
    let signIn: SignIn
    static let redirect = "http://127.0.0.1:33418/callback"

    init() throws {
        let clock = clock
        store = try FileSignInStore(path: nil, now: { clock.time.withLock { $0 } })
        signIn = SignIn(
            settings: SignIn.Settings(issuer: "https://tracker.example.com"), store: store, airtable: upstream.grantor,
            now: { clock.time.withLock { $0 } })
    }

    func register(_ uris: [String] = [redirect], name: String = "Assistant", from address: String = "10.0.0.1:5000")
        -> Result<JSONValue, SignIn.OAuthRefusal>
    {
        let body = JSONValue.object([
            ("client_name", .string(name)), ("redirect_uris", .array(uris.map(JSONValue.string))),
        ])
        return signIn.register(Data(body.serialized().utf8), from: address)
    }

    func client() throws -> String { try #require(try register().get()["client_id"]?.stringValue) }

    func authorizeQuery(_ client: String, challenge: String, _ extra: [(String, String)] = []) -> [(String, String)] {
        let base = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", Self.redirect), ("state", "s-1"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        return base.filter { name, _ in !extra.contains { $0.0 == name } } + extra
    }

    /// Through consent and Airtable's callback: the client's code, with the verifier it was asked with.
    func code(for client: String) async throws -> (code: String, verifier: String) {
        let (verifier, challenge) = ServeSignInClient.pkce()
        guard case .consent(let html, let cookie) = signIn.authorize(authorizeQuery(client, challenge: challenge))
        else {
            throw ServeSignInClient.Failure(description: "no consent page")
        }
        let request = try ServeSignInClient.field("request", in: html)
        let csrf = try ServeSignInClient.field("csrf", in: html)
        guard
            case .redirect(let toAirtable) = signIn.decide(
                [("request", request), ("csrf", csrf), ("decision", "allow")], cookie: cookie)
        else {
            throw ServeSignInClient.Failure(description: "Allow did not go on to Airtable")
        }
        let state = try #require(
            FormEncoding.single("state", in: FormEncoding.pairs(String(toAirtable.split(separator: "?")[1]))))
        guard
            case .redirect(let back) = await signIn.airtableCallback(
                [("code", "upstream-code"), ("state", state)], cookie: cookie)
        else {
            throw ServeSignInClient.Failure(description: "the callback did not complete")
        }
        let pairs = FormEncoding.pairs(String(back.split(separator: "?")[1]))
        #expect(FormEncoding.single("state", in: pairs) == "s-1")
        #expect(FormEncoding.single("iss", in: pairs) == "https://tracker.example.com")
        return (try #require(FormEncoding.single("code", in: pairs)), verifier)
    }

    func exchange(_ code: String, _ verifier: String, client: String, redirect: String = redirect) async
        -> Result<JSONValue, SignIn.OAuthRefusal>
    {
        await signIn.token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                ("code_verifier", verifier), ("client_id", client),
            ],
            authorization: nil)
    }

    func tokens(for client: String) async throws -> (access: String, refresh: String) {
        let (code, verifier) = try await code(for: client)
        let answer = try await exchange(code, verifier, client: client).get()
        return (try #require(answer["access_token"]?.stringValue), try #require(answer["refresh_token"]?.stringValue))
    }

    func isPerson(_ token: String) async -> Bool {
        if case .person = await signIn.verdict(on: token) { return true }
        return false
    }

    // MARK: - Codes and PKCE

    @Test func theWholeSignInGivesTokensThatActAsThePerson() async throws {
        let client = try client()
        let (access, _) = try await tokens(for: client)
        guard case .person(let person) = await signIn.verdict(on: access) else { Issue.record("refused"); return }
        #expect(person.userID == "usrPERSON0000001")
        #expect(person.clientID == client)
        #expect(
            upstream.issued.withLock { $0.contains(person.token) }, "the call acts with the person's Airtable token")
    }

    @Test func aCodeIsSingleUseAndASecondUseRevokesWhatTheFirstIssued() async throws {
        let client = try client()
        let (code, verifier) = try await code(for: client)
        let first = try await exchange(code, verifier, client: client).get()
        let access = try #require(first["access_token"]?.stringValue)
        #expect(await isPerson(access))
        let second = await exchange(code, verifier, client: client)
        #expect((try? second.get()) == nil)
        #expect(await !isPerson(access), "the tokens of the first use were revoked")
    }

    @Test func aVerifierThatIsNotTheChallengesIsRefused() async throws {
        let client = try client()
        let (code, verifier) = try await code(for: client)
        let wrong = String(verifier.dropLast()) + (verifier.last == "a" ? "b" : "a")
        guard case .failure(let refusal) = await exchange(code, wrong, client: client) else {
            Issue.record("a wrong verifier was taken"); return
        }
        #expect(refusal.error == "invalid_grant")
    }

    @Test func aCodeIsBoundToItsClientAndRedirectURIAndLivesTenMinutes() async throws {
        let client = try client()
        let other = try self.client()
        let (code, verifier) = try await code(for: client)
        #expect((try? await exchange(code, verifier, client: other).get()) == nil, "another client's code")
        let (code2, verifier2) = try await self.code(for: client)
        #expect((try? await exchange(code2, verifier2, client: client, redirect: "http://127.0.0.1:1/x").get()) == nil)
        let (code3, verifier3) = try await self.code(for: client)
        clock.advance(601)
        #expect((try? await exchange(code3, verifier3, client: client).get()) == nil, "a code older than 10 minutes")
    }

    @Test func onlyS256AndTheServersOwnResourceAreAsked() throws {
        let client = try client()
        let (_, challenge) = ServeSignInClient.pkce()
        for (extra, error) in [
            ([("code_challenge_method", "plain")], "invalid_request"),
            ([("code_challenge", "")], "invalid_request"),
            ([("resource", "https://other.example.com/mcp")], "invalid_target"),
            ([("state", "")], "invalid_request"),
            ([("scope", "admin")], "invalid_scope"),
        ] {
            guard case .redirect(let location) = signIn.authorize(authorizeQuery(client, challenge: challenge, extra))
            else {
                Issue.record("\(extra) was not refused back to the client"); continue
            }
            #expect(location.hasPrefix(Self.redirect + "?error=" + error), "\(extra): \(location)")
        }
    }

    // MARK: - No open redirect, the consent page

    @Test func anUnknownClientOrARedirectURINotItsOwnIsAnErrorPageNeverARedirect() throws {
        let client = try client()
        let (_, challenge) = ServeSignInClient.pkce()
        var unknown = authorizeQuery(client, challenge: challenge)
        unknown[1] = ("client_id", "trc_nobody")
        guard case .errorPage = signIn.authorize(unknown) else {
            Issue.record("an unknown client was redirected"); return
        }
        let foreign = authorizeQuery(client, challenge: challenge, [("redirect_uri", "https://evil.example/steal")])
        guard case .errorPage = signIn.authorize(foreign) else {
            Issue.record("a foreign redirect URI was used"); return
        }
    }

    @Test func theConsentPageEscapesTheClientsNameAndNamesTheHostItReturnsTo() throws {
        let hostile = "<script>alert(1)</script>\" onmouseover=\"x"
        let id = try #require(try register(name: hostile).get()["client_id"]?.stringValue)
        let (_, challenge) = ServeSignInClient.pkce()
        guard case .consent(let html, _) = signIn.authorize(authorizeQuery(id, challenge: challenge)) else {
            Issue.record("no consent page"); return
        }
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;x"))
        #expect(html.contains(">127.0.0.1:33418<"))
        #expect(html.contains(">Allow</button>") && html.contains(">Deny</button>"))
        #expect(SignInPages.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(SignInPages.headers["X-Frame-Options"] == "DENY")
    }

    @Test func theDecisionNeedsThePagesCSRFTokenAndBrowserAndIsTakenOnce() throws {
        let client = try client()
        let (_, challenge) = ServeSignInClient.pkce()
        func page() throws -> (request: String, csrf: String, cookie: String) {
            guard case .consent(let html, let cookie) = signIn.authorize(authorizeQuery(client, challenge: challenge))
            else {
                throw ServeSignInClient.Failure(description: "no consent page")
            }
            return (
                try ServeSignInClient.field("request", in: html), try ServeSignInClient.field("csrf", in: html), cookie
            )
        }
        let a = try page()
        guard
            case .errorPage = signIn.decide(
                [("request", a.request), ("csrf", "guessed"), ("decision", "allow")], cookie: a.cookie)
        else { Issue.record("a wrong CSRF token was taken"); return }
        let b = try page()
        guard
            case .errorPage = signIn.decide(
                [("request", b.request), ("csrf", b.csrf), ("decision", "allow")], cookie: "another")
        else { Issue.record("another browser's decision was taken"); return }
        let c = try page()
        guard
            case .redirect = signIn.decide(
                [("request", c.request), ("csrf", c.csrf), ("decision", "allow")], cookie: c.cookie)
        else { Issue.record("the right decision was refused"); return }
        guard
            case .errorPage = signIn.decide(
                [("request", c.request), ("csrf", c.csrf), ("decision", "allow")], cookie: c.cookie)
        else { Issue.record("a decision was taken twice"); return }
    }

    @Test func denyGoesBackWithAccessDeniedAndTheClientsState() throws {
        let client = try client()
        let (_, challenge) = ServeSignInClient.pkce()
        guard case .consent(let html, let cookie) = signIn.authorize(authorizeQuery(client, challenge: challenge))
        else {
            Issue.record("no consent page"); return
        }
        let form = [
            ("request", try ServeSignInClient.field("request", in: html)),
            ("csrf", try ServeSignInClient.field("csrf", in: html)), ("decision", "deny"),
        ]
        #expect(
            signIn.decide(form, cookie: cookie)
                == .redirect(Self.redirect + "?error=access_denied&state=s-1&iss=https%3A%2F%2Ftracker.example.com"))
    }

    // MARK: - Refresh tokens, access tokens

    @Test func refreshTokensRotateAndOneUsedTwiceRevokesTheGrant() async throws {
        let client = try client()
        let (access, refresh) = try await tokens(for: client)
        let form = [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", client)]
        let rotated = try await signIn.token(form, authorization: nil).get()
        let newAccess = try #require(rotated["access_token"]?.stringValue)
        #expect(rotated["refresh_token"]?.stringValue != refresh)
        #expect(await isPerson(newAccess))
        #expect((try? await signIn.token(form, authorization: nil).get()) == nil, "the old refresh token again")
        #expect(await !isPerson(newAccess), "the grant was not revoked")
        #expect(await !isPerson(access))
    }

    @Test func anAccessTokenLivesAnHourAndItsRefusalSaysInvalidToken() async throws {
        let client = try client()
        let (access, _) = try await tokens(for: client)
        clock.advance(3599)
        upstream.life.withLock { $0 = 1_000_000 }
        #expect(await isPerson(access))
        clock.advance(2)
        #expect(await signIn.verdict(on: access) == .refused("the token has expired", expired: true))
    }

    @Test func anAirtableTokenOrAnythingServeDidNotIssueIsRefused() async throws {
        let client = try client()
        _ = try await tokens(for: client)
        for bearer in upstream.issued.withLock({ $0 }) + ["patFAKEfake000000.0000", "x"] {
            #expect(await signIn.verdict(on: bearer) == .refused("not a token this server issued", expired: false))
        }
    }

    @Test func revokingATokenEndsItsGrant() async throws {
        let client = try client()
        let (access, refresh) = try await tokens(for: client)
        signIn.revoke([("token", refresh)])
        #expect(await !isPerson(access))
    }

    // MARK: - The person's Airtable grant

    @Test func anAirtableTokenNearItsEndIsRefreshedOnceByManyCallsAtOnce() async throws {
        let client = try client()
        let (access, _) = try await tokens(for: client)
        clock.advance(3600 - 30)
        let people = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { await self.isPerson(access) } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(people == 8)
        #expect(upstream.refreshes.withLock { $0 } == 1)
        #expect(await isPerson(access))
        #expect(upstream.refreshes.withLock { $0 } == 1, "a fresh token is not refreshed again")
    }

    @Test func aRefreshAirtableRefusesEndsTheGrantWithoutALoop() async throws {
        let client = try client()
        let (access, _) = try await tokens(for: client)
        clock.advance(3600 - 30)
        upstream.refusing.withLock { $0 = true }
        guard case .refused(_, let expired) = await signIn.verdict(on: access) else {
            Issue.record("not refused"); return
        }
        #expect(expired, "invalid_token")
        #expect(await signIn.verdict(on: access) == .refused("the grant was revoked", expired: true))
        #expect(upstream.refreshes.withLock { $0 } == 1, "refused once, never asked again")
    }

    // MARK: - At rest

    @Test func theStoreHoldsNoTokenNorAnyAirtableToken() async throws {
        let client = try client()
        let (code, verifier) = try await code(for: client)
        let answer = try await exchange(code, verifier, client: client).get()
        let secrets =
            upstream.issued.withLock { $0 } + [
                code, answer["access_token"]?.stringValue ?? "?", answer["refresh_token"]?.stringValue ?? "?",
            ]
        let everything = try store.entries(prefix: "").map { $0.key + " " + $0.value }.joined(separator: "\n")
        #expect(!everything.isEmpty)
        for secret in secrets { #expect(!everything.contains(secret), "\(secret.prefix(6))… at rest") }
    }

    @Test func aSealedValueOpensOnlyWithItsKeyAndContextUntouched() throws {
        let key = Sealing.randomBytes(32)
        let sealed = try #require(Sealing.seal(Array("the person's token".utf8), key: key, context: "grant A"))
        #expect(
            Sealing.open(sealed, key: key, context: "grant A").map { String(decoding: $0, as: UTF8.self) }
                == "the person's token")
        #expect(Sealing.open(sealed, key: Sealing.randomBytes(32), context: "grant A") == nil)
        #expect(Sealing.open(sealed, key: key, context: "grant B") == nil)
        var tampered = sealed
        tampered[14] ^= 1
        #expect(Sealing.open(tampered, key: key, context: "grant A") == nil)
    }

    // MARK: - Registration

    @Test func registrationIsBounded() throws {
        #expect((try? register(Array(repeating: Self.redirect, count: 11)).get()) == nil, "11 redirect URIs")
        #expect((try? register(name: String(repeating: "n", count: 201)).get()) == nil, "a name over 200")
        #expect((try? register(["http://assistant.example/cb"]).get()) == nil, "http beyond loopback")
        #expect((try? register(["https://assistant.example/cb#x"]).get()) == nil, "a fragment")
        #expect((try? register(["https://assistant.example/cb"]).get()) != nil)
        for _ in 0..<SignIn.registrationsPerHour { _ = register(from: "10.0.0.9:1") }
        guard case .failure(let refusal) = register(from: "10.0.0.9:2") else {
            Issue.record("not rate-limited"); return
        }
        #expect(refusal.status == 429)
        #expect((try? register(from: "10.0.0.10:1").get()) != nil, "another address is not held back")
    }
}
