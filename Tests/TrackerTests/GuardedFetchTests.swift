import Foundation
import Testing

@testable import FakeAirtable
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerServe
@testable import TrackerSystem
@testable import TrackerOperations

/// A document a stranger names is fetched only on the public internet: every address inside a network refused after
/// the host is resolved, https alone, a URL with a path and no user or fragment.
struct GuardedFetchTests {
    @Test(arguments: [
        "127.0.0.1", "127.8.9.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1",
        "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "ff02::1", "2002:7f00:1::", "not an address",
    ])
    func addressesInsideANetworkAreNotPublic(address: String) {
        #expect(!GuardedFetch.isPublic(address))
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
    func addressesOnTheInternetArePublic(address: String) {
        #expect(GuardedFetch.isPublic(address))
    }

    @Test(arguments: [
        "http://client.example.com/meta.json", "https://client.example.com", "https://client.example.com/",
        "https://user@client.example.com/meta.json", "https://client.example.com/meta.json#x", "ftp://x/y",
    ])
    func onlyHttpsURLsWithAPathAreFetched(url: String) {
        #expect((try? GuardedFetch.target(url).get()) == nil)
    }

    @Test func aHostResolvingInsideANetworkIsNotFetched() {
        for addresses in [["10.0.0.5"], ["93.184.216.34", "127.0.0.1"], ["169.254.169.254"], []] {
            let fetched = GuardedFetch.fetch("https://client.example.com/meta.json") { _ in addresses }
            guard case .failure = fetched else {
                Issue.record("fetched with \(addresses)")
                continue
            }
        }
        guard case .failure(let error) = GuardedFetch.fetch("https://127.0.0.1:9/meta.json") else {
            Issue.record("a loopback address was fetched")
            return
        }
        #expect(error.message.contains("inside a network"))
    }
}

/// A client described by its metadata document: taken only when the document names itself, its redirect URIs the only
/// ones allowed, kept as its caching says.
struct ClientDocumentTests {
    static let url = "https://assistant.example.com/oauth/client.json"

    final class Fetches: Sendable {
        let count = Locked(0)
        let document = Locked(#"{}"#)
        let cacheControl = Locked<String?>(nil)
    }

    let fetches = Fetches()
    let signIn: SignIn

    init() throws {
        let fetches = fetches
        signIn = SignIn(
            settings: SignIn.Settings(issuer: "https://tracker.example.com"), store: try FileSignInStore(path: nil),
            airtable: SignInTests.Upstream().grantor,
            fetchDocument: { _ in
                fetches.count.withLock { $0 += 1 }
                var headers = ["content-type": "application/json"]
                if let control = fetches.cacheControl.withLock({ $0 }) { headers["cache-control"] = control }
                return .success(
                    GuardedFetch.Fetched(
                        status: 200, headers: headers, body: Data(fetches.document.withLock { $0 }.utf8)))
            })
    }

    func authorize(redirect: String = "http://127.0.0.1:7777/cb") -> SignIn.BrowserStep {
        signIn.authorize([
            ("response_type", "code"), ("client_id", Self.url), ("redirect_uri", redirect), ("state", "s"),
            ("code_challenge", ServeSignInClient.pkce().challenge), ("code_challenge_method", "S256"),
        ])
    }

    func document(id: String = url, name: String = "Assistant <Web>", uris: [String] = ["http://127.0.0.1:7777/cb"]) {
        let body = JSONValue.object([
            ("client_id", .string(id)), ("client_name", .string(name)),
            ("redirect_uris", .array(uris.map(JSONValue.string))),
        ]).serialized()
        fetches.document.withLock { $0 = body }
    }

    @Test func aDocumentNamingItselfIsAClientAndIsKeptAsItsCachingSays() {
        document()
        guard case .consent(let html, _) = authorize() else { Issue.record("no consent page"); return }
        #expect(html.contains("Assistant &lt;Web&gt;"))
        _ = authorize()
        #expect(fetches.count.withLock { $0 } == 1, "kept five minutes when it says nothing")
        fetches.cacheControl.withLock { $0 = "no-store" }
        let other = SignIn(
            settings: signIn.settings, store: try! FileSignInStore(path: nil), airtable: nil,
            fetchDocument: signIn.fetchDocument)
        _ = other.authorize([("client_id", Self.url)])
        _ = other.authorize([("client_id", Self.url)])
        #expect(fetches.count.withLock { $0 } == 3, "no-store: fetched each time")
    }

    @Test func aDocumentThatNamesAnotherClientOrARedirectItDoesNotListIsRefused() {
        document(id: "https://evil.example.com/client.json")
        guard case .errorPage(_, let text) = authorize() else { Issue.record("another's client_id taken"); return }
        #expect(text.contains("client_id is not its own URL"))
        document()
        guard case .errorPage = authorize(redirect: "https://evil.example.com/steal") else {
            Issue.record("a redirect URI the document does not list was used")
            return
        }
    }

    @Test func theMetadataSaysDocumentsAreTaken() {
        #expect(signIn.authorizationServerMetadata["client_id_metadata_document_supported"] == .bool(true))
    }
}

/// serve's public URL may be http:// only on this machine's loopback: a host that merely begins like one is not.
struct LoopbackURLTests {
    @Test func onlyALoopbackAddressIsLoopback() {
        for url in ["http://127.0.0.1:8765", "http://localhost:8765/", "http://[::1]:8765", "http://127.9.9.9"] {
            #expect(SignInCheck.isLoopback(url), "\(url)")
        }
        for url in [
            "http://127.0.0.1.evil.example", "http://127.example.com", "http://tracker.example.com", "http://10.0.0.1",
        ] {
            #expect(!SignInCheck.isLoopback(url), "\(url)")
        }
    }
}
