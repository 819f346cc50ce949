#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerNetwork

/// Client ID Metadata Documents: a client whose id is an https URL describes itself there (its name, its redirect
/// URIs). serve fetches it within `GuardedFetch`'s bounds, takes it only when its `client_id` is that URL, and keeps
/// it as long as its HTTP caching allows (a day at most, five minutes when it says nothing).
extension SignIn {
    static func documentKey(_ url: String) -> String { "signin:document:" + SignInKeys.digest(url) }

    func documentedClient(_ url: String) -> Result<SignInClient, AppError> {
        if let kept = SignInKeys.decode(SignInClient.self, try? store.get(Self.documentKey(url))) {
            return .success(kept)
        }
        let fetched: GuardedFetch.Fetched
        switch fetchDocument(url) {
        case .success(let answer): fetched = answer
        case .failure(let error):
            return .failure(
                .network("the client's metadata document at \(url.prefix(200)) could not be fetched: \(error.message)"))
        }
        let client: SignInClient
        switch Self.describedClient(fetched, url: url, at: now()) {
        case .success(let found): client = found
        case .failure(let refusal):
            return .failure(
                .network("the client's metadata document at \(url.prefix(200)) is not one serve takes: \(refusal.why)"))
        }
        let seconds = Self.cacheSeconds(fetched.headers["cache-control"])
        if seconds > 0 { try? store.put(Self.documentKey(url), SignInKeys.encode(client), liveFor: seconds) }
        return .success(client)
    }

    /// The client a fetched document describes, or why it is not taken.
    static func describedClient(_ fetched: GuardedFetch.Fetched, url: String, at time: Double) -> Result<
        SignInClient, DocumentRefusal
    > {
        func refused(_ why: String) -> Result<SignInClient, DocumentRefusal> { .failure(DocumentRefusal(why: why)) }
        guard fetched.status == 200 else { return refused("it answered \(fetched.status)") }
        guard let document = try? JSONParser.parse(fetched.body), document.objectMembers != nil else {
            return refused("it is not a JSON object")
        }
        guard document["client_id"]?.stringValue == url else { return refused("its client_id is not its own URL") }
        let uris = document["redirect_uris"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !uris.isEmpty, uris.count <= mostRedirectURIs, uris.allSatisfy(isAllowedRedirect) else {
            return refused("it needs 1 to \(mostRedirectURIs) redirect_uris, each https:// or a loopback http://")
        }
        let method = document["token_endpoint_auth_method"]?.stringValue ?? "none"
        guard method == "none" else {
            return refused("serve takes public clients only (token_endpoint_auth_method none)")
        }
        let name = document["client_name"]?.stringValue ?? host(of: url)
        guard name.count <= longestName,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return refused("its client_name is over \(longestName) characters or holds control characters") }
        return .success(SignInClient(id: url, name: name, redirectURIs: uris, secretDigest: nil, created: time))
    }

    /// How long a document may be kept, from its `Cache-Control`: `no-store`/`no-cache` not at all, `max-age` up to a
    /// day, five minutes when it says nothing.
    static func cacheSeconds(_ control: String?) -> Double {
        guard let control = control?.lowercased() else { return 300 }
        if control.contains("no-store") || control.contains("no-cache") { return 0 }
        if let range = control.firstRange(of: "max-age=") {
            let digits = control[range.upperBound...].prefix { $0.isNumber }
            return min(86_400, Double(digits) ?? 300)
        }
        return 300
    }
}

/// Why a client's metadata document is not taken.
struct DocumentRefusal: Error, Equatable {
    var why: String
}
