#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
@_spi(Sending) import TrackerNetwork
import TrackerModel

/// A webhook of the base as `GET …/webhooks` lists it.
public struct ListedWebhook: Equatable, Sendable {
    public var id: String
    public var cursorForNextPayload: Int
    public var expirationTime: String?
    /// Made the way tracker makes its own: record changes of every table, polled (no notification address).
    public var isTrackers: Bool
    /// Whether it still records changes: Airtable disables a hook nobody polled or refreshed for 7 days.
    public var isEnabled = true

    /// Its expiry, seconds since 1970; nil when the listing gave none.
    public var expires: Double? { expirationTime.flatMap(ISOInstant.date)?.timeIntervalSince1970 }

    /// Whether tracker may read its news at the server's time `now`: tracker's kind, enabled, and known to outlive
    /// `now`. A hook without a known expiry is not trusted (the stricter reading: Airtable lists one for every hook
    /// a token makes).
    public func isUsable(at now: Double) -> Bool {
        guard isTrackers, isEnabled, let expires else { return false }
        return expires > now
    }
}

/// What the payloads since a cursor say: the ids created or changed and the ids destroyed, by table id.
public struct WebhookNews: Equatable, Sendable {
    public var changed: [String: Set<String>] = [:]
    public var destroyed: [String: Set<String>] = [:]
    /// The cursor to read from next time.
    public var next: Int
    /// Payloads between the cursor asked for and the first one answered are gone (kept only 7 days): what they said
    /// is lost, and a copy kept by them must be read again whole.
    public var missedSome = false
    /// A payload said the hook can no longer report changes (`"error": true`, its code): its news is not to be
    /// trusted, and a new hook is needed.
    public var failure: String?
    /// The server's time of the last answer (seconds since 1970): an active hook lives 7 days from it.
    public var answeredAt: Double?

    public var isEmpty: Bool { changed.isEmpty && destroyed.isEmpty }
}

/// A webhook that pings a URL of tracker's (`serve`'s doorbell): its id, its signing key, its expiry.
public struct Doorbell: Equatable, Sendable {
    public var id: String
    /// The key of HMAC-SHA256 that signs each ping (`macSecretBase64`, decoded): a secret, kept like a token.
    public var secret: [UInt8]
    public var expirationTime: String?

    public init(id: String, secret: [UInt8], expirationTime: String?) {
        (self.id, self.secret, self.expirationTime) = (id, secret, expirationTime)
    }

    /// Its expiry, seconds since 1970; nil when unknown.
    public var expires: Double? { expirationTime.flatMap(ISOInstant.date)?.timeIntervalSince1970 }
}

/// The base's one webhook tracker polls, or why there is none.
public enum BaseWebhook: Sendable {
    case hook(ListedWebhook)
    case unavailable(because: String)
}

/// Webhooks as a client that polls uses them (docs/airtable-webhooks.md): made with no notification address, their
/// payloads read from a cursor of tracker's own.
extension ProjectAPIClient {
    private var webhooksURL: URL {
        URL(string: access.endpoint.absoluteString + "/v0/bases/" + Self.escape(access.baseID) + "/webhooks")!
    }

    /// The base's webhooks. A token without `webhook:manage` gets 403.
    public func listWebhooks() async -> Result<[ListedWebhook], AppError> {
        await network.send(request(webhooksURL, method: "GET"), kind: .idempotent).flatMap { data in
            Result { () throws(AppError) in
                guard let hooks = try RecordDecoding.body(data)["webhooks"]?.arrayValue else {
                    throw AppError.badResponse("webhooks is missing")
                }
                return hooks.compactMap { hook in
                    // A cursor that is no whole number a program can count with (1e300) makes the hook unusable.
                    guard let id = hook["id"]?.stringValue, let cursor = hook["cursorForNextPayload"]?.intValue,
                        cursor >= 1
                    else { return nil }
                    let filters = hook["specification"]?["options"]?["filters"]
                    let types = filters?["dataTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    let isTrackers =
                        types == ["tableData"] && (filters?["recordChangeScope"] ?? .null).isNull
                        && (hook["notificationUrl"] ?? .null).isNull
                    return ListedWebhook(
                        id: id, cursorForNextPayload: cursor, expirationTime: hook["expirationTime"]?.stringValue,
                        isTrackers: isTrackers, isEnabled: hook["isHookEnabled"]?.boolValue == true)
                }
            }
        }
    }

    /// Finds the base's webhook (the one `memory` remembers, else one made as tracker makes them) or makes it, and
    /// remembers it; its cursor, taken before any table is read, misses nothing written after. Only a hook that is
    /// usable (tracker's kind, enabled, unexpired at the server's time) is adopted; a remembered id that is not one is
    /// forgotten, and `distrusted` ids (a hook whose payloads said it broke) are passed over. Without the scope or
    /// the creator's permission (or with the base's 10 taken), why not.
    public func basesWebhook(memory: WebhookMemory?, distrusted: Set<String> = []) async throws -> BaseWebhook {
        let hooks: [ListedWebhook]
        switch await listWebhooks() {
        case .success(let listed): hooks = listed
        case .failure(let error):
            if Self.isRefused(error) {
                return .unavailable(because: "the token may not manage webhooks (scope webhook:manage)")
            }
            // An endpoint of one's own (a proxy) may lack the webhook routes: the copy then lists ids, as it did.
            guard case .http(404, _) = error else { throw error }
            return .unavailable(because: "\(access.endpoint.absoluteString) has no webhook routes")
        }
        // The listing's own answer told the server's time; before any, this machine's clock stands in.
        let now = network.serverClock.now() ?? Date().timeIntervalSince1970
        let usable = hooks.filter { $0.isUsable(at: now) && !distrusted.contains($0.id) }
        let remembered = memory?.recall()
        if let remembered, !usable.contains(where: { $0.id == remembered }) { memory?.remember(nil) }
        if let hook = usable.first(where: { $0.id == remembered }) ?? usable.first {
            if hook.id != remembered { memory?.remember(hook.id) }
            return .hook(hook)
        }
        switch await createWebhook() {
        case .success(let made):
            memory?.remember(made.id)
            return .hook(made)
        case .failure(let error):
            if Self.isRefused(error) {
                return .unavailable(because: "only the base's creator may make its webhook")
            }
            guard case .http(_, let body) = error, body.type == Self.tooManyWebhooks else { throw error }
            return .unavailable(because: "the base has as many webhooks as Airtable allows (10)")
        }
    }

    /// The error type of an 11th webhook (its status is not recorded; the type is what tells it).
    static let tooManyWebhooks = "TOO_MANY_WEBHOOKS_IN_BASE"

    /// A 403: the token lacks the scope, or its user the permission.
    static func isRefused(_ error: AppError) -> Bool {
        guard case .http(let status, _) = error else { return false }
        return status == 403
    }

    /// Makes the one webhook tracker polls: record changes of every table, no notification address. Needs the scope
    /// and the base's creator permission (else 403); the 11th of a base is 422.
    @_spi(Webhooks) public func createWebhook() async -> Result<ListedWebhook, AppError> {
        let filters = JSONValue.object([("dataTypes", .array([.string("tableData")]))])
        let body = JSONValue.object([("specification", .object([("options", .object([("filters", filters)]))]))])
        // Not idempotent: a lost answer leaves a hook that the next listing finds by its shape and adopts.
        return await network.send(request(webhooksURL, method: "POST", body: body), kind: .notIdempotent).flatMap {
            data in
            Result { () throws(AppError) in
                let body = try RecordDecoding.body(data)
                guard let id = body["id"]?.stringValue else { throw AppError.badResponse("id is missing") }
                // A new hook's first payload is numbered 1.
                return ListedWebhook(
                    id: id, cursorForNextPayload: 1, expirationTime: body["expirationTime"]?.stringValue,
                    isTrackers: true)
            }
        }
    }

    /// Makes a webhook that pings `notificationURL` when a record changes (`tracker serve`'s doorbell: it reads no
    /// payloads of its own; the copy's poller reads its hook's). Its id, the key its pings are signed with (given only
    /// now), and when it expires unless refreshed.
    @_spi(Webhooks) public func createDoorbell(notificationURL: String) async -> Result<Doorbell, AppError> {
        let filters = JSONValue.object([("dataTypes", .array([.string("tableData")]))])
        let body = JSONValue.object([
            ("notificationUrl", .string(notificationURL)),
            ("specification", .object([("options", .object([("filters", filters)]))])),
        ])
        return await network.send(request(webhooksURL, method: "POST", body: body), kind: .notIdempotent).flatMap {
            data in
            Result { () throws(AppError) in
                let body = try RecordDecoding.body(data)
                guard let id = body["id"]?.stringValue, let secret = body["macSecretBase64"]?.stringValue,
                    let key = Data(base64Encoded: secret), !key.isEmpty
                else { throw AppError.badResponse("the new webhook's id or secret is missing") }
                return Doorbell(id: id, secret: Array(key), expirationTime: body["expirationTime"]?.stringValue)
            }
        }
    }

    /// Gives the hook another 7 days; answers its new expiration time.
    @_spi(Webhooks) public func refreshWebhook(_ id: String) async -> Result<String?, AppError> {
        let url = URL(string: webhooksURL.absoluteString + "/" + Self.escape(id) + "/refresh")!
        return await network.send(request(url, method: "POST"), kind: .idempotent).flatMap { data in
            Result { () throws(AppError) in try RecordDecoding.body(data)["expirationTime"]?.stringValue }
        }
    }

    /// Every payload from `cursor` on, 50 a request while more remain. A hook that is gone answers 404. An answer
    /// whose cursor is not a whole number, or goes back, is malformed; one that says there is more without moving the
    /// cursor ends the reading (it would be polled for ever).
    public func webhookNews(_ id: String, from cursor: Int) async -> Result<WebhookNews, AppError> {
        var news = WebhookNews(next: cursor)
        while true {
            let query = Self.encode([("cursor", String(news.next)), ("limit", "50")])
            let url = URL(string: webhooksURL.absoluteString + "/" + Self.escape(id) + "/payloads?" + query)!
            let answer = await network.send(request(url, method: "GET"), kind: .idempotent)
            let body: JSONValue
            do { body = try RecordDecoding.body(answer.get()) } catch { return .failure(error) }
            guard let payloads = body["payloads"]?.arrayValue, let next = body["cursor"]?.intValue else {
                return .failure(.badResponse("the webhook's payloads or cursor is missing or not a whole number"))
            }
            guard next >= news.next else {
                return .failure(.badResponse("the webhook's cursor went back from \(news.next) to \(next)"))
            }
            news.answeredAt = network.serverClock.now()
            // The answer starts at the oldest payload kept when the cursor is older (not documented,
            // docs/airtable-webhooks.md): counting
            // back from the next cursor tells whether any were skipped.
            if next - payloads.count > news.next { news.missedSome = true }
            for payload in payloads {
                if payload["error"]?.boolValue == true {
                    news.failure = payload["code"]?.stringValue ?? "an error payload"
                }
                for (table, changes) in payload["changedTablesById"]?.objectMembers ?? [] {
                    var ids = Set((changes["createdRecordsById"]?.objectMembers ?? []).map(\.0))
                    ids.formUnion((changes["changedRecordsById"]?.objectMembers ?? []).map(\.0))
                    if !ids.isEmpty { news.changed[table, default: []].formUnion(ids) }
                    let gone = changes["destroyedRecordIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    if !gone.isEmpty { news.destroyed[table, default: []].formUnion(gone) }
                }
            }
            let moved = next > news.next
            news.next = next
            guard body["mightHaveMore"]?.boolValue == true, !payloads.isEmpty, moved else { return .success(news) }
        }
    }
}
