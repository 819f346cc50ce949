import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerSystem

/// One webhook of the base, as a client that polls uses it (docs/airtable-webhooks.md): no notification URL, payloads
/// kept in order and read from any cursor, as many readers as like.
struct FakeWebhook {
    var id: String
    /// The table it watches (`recordChangeScope`), nil for every table.
    var tableID: String?
    var specification: Any
    var expires: Date
    /// The payloads kept, the first numbered `firstCursor`.
    var payloads: [[String: Any]] = []
    var firstCursor = 1
    /// Where Airtable pings when the hook records a payload (`notificationUrl`), if anywhere.
    var notificationURL: String? = nil
    /// The key its pings are signed with (`macSecretBase64`, given once, at creation).
    var secret: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    var nextCursor: Int { firstCursor + payloads.count }

    /// Whether it still records: a hook neither polled nor refreshed for 7 days "expires and is disabled"
    /// (docs/airtable-webhooks.md).
    func isEnabled(at now: Date) -> Bool { expires > now }
}

/// A ping Airtable sent a hook's notification URL: kept, so a test may send it again (a replay).
public struct FakePing: Sendable {
    public var url: String
    public var body: [UInt8]
    /// `X-Airtable-Content-MAC`'s value.
    public var mac: String

    /// POSTs the ping to its URL (a loopback `http://` one); the status answered, 0 when none came.
    @discardableResult
    public func send() -> Int {
        LoopbackPost.send(
            url, headers: ["X-Airtable-Content-MAC": mac, "Content-Type": "application/json"], body: body)
    }
}

/// The base's webhooks and the transactions they have seen.
struct FakeWebhookStore {
    var hooks: [FakeWebhook] = []
    var transactions = 0
    /// Airtable allows 10 a base.
    static let maximum = 10
    /// A hook lives 7 days unless refreshed or polled; disabled, it stays listed 7 days more, then 404s.
    static let lifetime = 7 * 24 * 3600.0
    /// Payloads read at most in one call.
    static let pageLimit = 50
}

extension FakeAirtable {
    /// `…/v0/bases/{baseId}/webhooks[/{id}[/refresh|/payloads]]`.
    func webhooks(_ request: HTTPRequest, _ parts: [String]) -> HTTPAction {
        // Every webhook route needs webhook:manage; a token without it gets the usual 403.
        guard parts.first == options.baseID, parts.count >= 2, parts[1] == "webhooks", options.grantsWebhookScope else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        let rest = Array(parts.dropFirst(2))
        switch (request.method, rest.count) {
        case ("POST", 0): return createWebhook(request.body)
        case ("GET", 0): return listWebhooks()
        case ("DELETE", 1):
            return locked {
                guard let index = hooks.hooks.firstIndex(where: { $0.id == rest[0] }) else { return notFoundRoute() }
                hooks.hooks.remove(at: index)
                return ok([String: Any]())
            }
        case ("POST", 2) where rest[1] == "refresh":
            // Refreshing needs the base's creator (listing hooks and payloads does not), and an active hook: an
            // expired one's refresh is refused (status not documented, docs/airtable-webhooks.md; the fake answers
            // 422).
            guard options.isBaseCreator else {
                return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
            }
            return locked {
                expireHooks()
                guard let index = hooks.hooks.firstIndex(where: { $0.id == rest[0] }) else { return notFoundRoute() }
                guard hooks.hooks[index].isEnabled(at: webhookNow) else {
                    return error(422, "CANNOT_REFRESH_DISABLED_WEBHOOK", "This webhook has expired")
                }
                hooks.hooks[index].expires = webhookNow.addingTimeInterval(FakeWebhookStore.lifetime)
                return ok(["expirationTime": ISOInstant.text(hooks.hooks[index].expires)])
            }
        case ("GET", 2) where rest[1] == "payloads":
            return payloads(rest[0], query: Self.queryPairs(request.query))
        default:
            return notFoundRoute()
        }
    }

    private func createWebhook(_ body: Data) -> HTTPAction {
        guard let object = AnyJSON.parse(body) as? [String: Any],
            let specification = object["specification"] as? [String: Any],
            let filters = (specification["options"] as? [String: Any])?["filters"] as? [String: Any],
            let types = filters["dataTypes"] as? [String], types.contains("tableData")
        else { return invalidRequest() }
        // Creating one needs the base's creator permission, besides the scope.
        guard options.isBaseCreator else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        let scope = filters["recordChangeScope"] as? String
        return locked {
            if let scope, base.tables.first(where: { $0.id == scope }) == nil { return invalidRequest() }
            expireHooks()
            // The type is the one seen in production; its status is UNCONFIRMED (docs/airtable-webhooks.md), a 422
            // here. Disabled hooks
            // still listed count against the 10.
            guard hooks.hooks.count < FakeWebhookStore.maximum else {
                return error(422, "TOO_MANY_WEBHOOKS_IN_BASE", "A base can have at most 10 webhooks")
            }
            // What was written before the hook was made is not its news.
            recordWebhookPayloads()
            var hook = FakeWebhook(
                id: FakeBase.makeID(prefix: "ach"), tableID: scope, specification: specification,
                expires: webhookNow.addingTimeInterval(FakeWebhookStore.lifetime))
            hook.notificationURL = object["notificationUrl"] as? String
            hooks.hooks.append(hook)
            return ok([
                "id": hook.id, "macSecretBase64": Data(hook.secret).base64EncodedString(),
                "expirationTime": ISOInstant.text(hook.expires),
            ])
        }
    }

    private func listWebhooks() -> HTTPAction {
        locked {
            expireHooks()
            let now = webhookNow
            let listed: [[String: Any]] = hooks.hooks.map { hook in
                [
                    "id": hook.id, "specification": hook.specification,
                    "notificationUrl": hook.notificationURL ?? AnyJSON.Null(),
                    "cursorForNextPayload": hook.nextCursor, "isHookEnabled": hook.isEnabled(at: now),
                    "areNotificationsEnabled": hook.notificationURL != nil,
                    "expirationTime": ISOInstant.text(hook.expires),
                ]
            }
            return ok(["webhooks": listed])
        }
    }

    private func payloads(_ id: String, query: [(String, String)]) -> HTTPAction {
        let cursor = query.last { $0.0 == "cursor" }.flatMap { Int($0.1) } ?? 1
        let limit = query.last { $0.0 == "limit" }.flatMap { Int($0.1) } ?? FakeWebhookStore.pageLimit
        guard cursor >= 1, (1...FakeWebhookStore.pageLimit).contains(limit) else { return invalidRequest() }
        return locked {
            expireHooks()
            recordWebhookPayloads()
            guard let index = hooks.hooks.firstIndex(where: { $0.id == id }) else { return notFoundRoute() }
            // Listing payloads extends an active hook's life 7 days from now; a disabled one answers what it kept, and
            // nothing new (what Airtable answers then is UNCONFIRMED: this is the silent case).
            if hooks.hooks[index].isEnabled(at: webhookNow) {
                hooks.hooks[index].expires = webhookNow.addingTimeInterval(FakeWebhookStore.lifetime)
            }
            let hook = hooks.hooks[index]
            // A cursor older than what is kept answers from the oldest kept (not documented,
            // docs/airtable-webhooks.md).
            let start = max(cursor, hook.firstCursor)
            let offset = min(hook.payloads.count, start - hook.firstCursor)
            let page = Array(hook.payloads[offset...].prefix(limit))
            let next = start + page.count
            return ok([
                "payloads": page, "cursor": next,
                "mightHaveMore": next < hook.nextCursor, "payloadFormat": "v0",
            ])
        }
    }

    /// Turns what writes did since the last call into one payload for each hook that watches the tables changed.
    /// Called under the lock, after every successful write; `source` is who made it (`client`: a person in the app).
    func recordWebhookPayloads(source: String = "publicApi") {
        var changedTables: [String: [String: Any]] = [:]
        for index in base.tables.indices {
            let journal = base.tables[index].takeJournal()
            guard !journal.isEmpty else { continue }
            let table = base.tables[index]
            var created: [String: Any] = [:]
            var changed: [String: Any] = [:]
            var destroyed: [String] = []
            func cells(_ id: String) -> [String: Any] {
                guard let record = table.record(id: id) else { return [:] }
                return Dictionary(
                    record.fields.compactMap { name, value in table.field(named: name).map { ($0.id, value) } }
                ) { first, _ in first }
            }
            for (id, change) in journal {
                switch change {
                case .created:
                    created[id] = [
                        "createdTime": table.record(id: id)?.createdTime ?? "", "cellValuesByFieldId": cells(id),
                    ]
                case .changed where created[id] == nil:
                    changed[id] = ["current": ["cellValuesByFieldId": cells(id)]]
                case .destroyed:
                    created[id] = nil
                    changed[id] = nil
                    destroyed.append(id)
                default: break
                }
            }
            var entry: [String: Any] = [:]
            if !created.isEmpty { entry["createdRecordsById"] = created }
            if !changed.isEmpty { entry["changedRecordsById"] = changed }
            if !destroyed.isEmpty { entry["destroyedRecordIds"] = destroyed }
            if !entry.isEmpty { changedTables[table.id] = entry }
        }
        guard !changedTables.isEmpty, !hooks.hooks.isEmpty else { return }
        hooks.transactions += 1
        let now = webhookNow
        for index in hooks.hooks.indices where hooks.hooks[index].isEnabled(at: now) {
            let scope = hooks.hooks[index].tableID
            let watched = scope.map { table in changedTables.filter { $0.key == table } } ?? changedTables
            guard !watched.isEmpty else { continue }
            hooks.hooks[index].payloads.append([
                "timestamp": ISOInstant.text(webhookNow), "baseTransactionNumber": hooks.transactions,
                "actionMetadata": [
                    "source": source,
                    "sourceMetadata": ["user": ["id": options.user.id, "permissionLevel": "create"]],
                ],
                "payloadFormat": "v0", "changedTablesById": watched,
            ])
            if let url = hooks.hooks[index].notificationURL {
                ping(url, hook: hooks.hooks[index].id, secret: hooks.hooks[index].secret)
            }
        }
    }

    /// Pings a hook's notification URL, as Airtable does when it records a payload: the base and the hook in a small
    /// body, signed with the hook's secret (`X-Airtable-Content-MAC: hmac-sha256=<hex>`), sent on a thread of its own.
    /// Airtable does not retry a ping that fails; neither does this.
    private func ping(_ url: String, hook: String, secret: [UInt8]) {
        let body = Array(
            #"{"base":{"id":"\#(options.baseID)"},"webhook":{"id":"\#(hook)"},"timestamp":"\#(ISOInstant.text(webhookNow))"}"#
                .utf8)
        let mac = "hmac-sha256=" + Digest.hmacSHA256Hex(keyBytes: secret, body)
        pings.append(FakePing(url: url, body: body, mac: mac))
        let ping = pings[pings.count - 1]
        _ = DetachedThread.start { ping.send() }
    }

    /// A hook 7 days past its expiration is removed, its payloads with it (until then it is listed, disabled).
    private func expireHooks() {
        let now = webhookNow
        hooks.hooks.removeAll { $0.expires.addingTimeInterval(FakeWebhookStore.lifetime) <= now }
    }

    /// The webhooks' clock: the fake's, moved on by `letTimePass(days:)`.
    var webhookNow: Date { Date().addingTimeInterval(clockShift) }

    // MARK: - For tests

    /// Every webhook ends as if its 7 days ran out unrefreshed (or someone deleted it behind tracker's back).
    public func expireWebhooks() { locked { hooks.hooks.removeAll() } }

    /// `days` days pass on the fake's clock (its `Date` headers, the records' times, the webhooks') with nobody
    /// polling or refreshing a webhook (a holiday): past 7 a hook is listed disabled and records nothing; past 14 it
    /// is gone.
    public func letTimePass(days: Double) { locked { clockShift += days * 86400 } }

    /// Each hook's next payload is an error (`INVALID_HOOK`, `INVALID_FILTERS`): it can no longer report changes.
    public func breakWebhooks(code: String = "INVALID_HOOK") {
        locked {
            hooks.transactions += 1
            for index in hooks.hooks.indices {
                hooks.hooks[index].payloads.append([
                    "timestamp": ISOInstant.text(webhookNow), "baseTransactionNumber": hooks.transactions,
                    "error": true, "code": code, "payloadFormat": "v0",
                ])
            }
        }
    }

    /// A hook made by someone else, watching only `tableID`: not tracker's kind. Its id.
    @discardableResult
    public func addForeignWebhook(watching tableID: String) -> String {
        locked {
            let filters: [String: Any] = ["dataTypes": ["tableData"], "recordChangeScope": tableID]
            let specification: [String: Any] = ["options": ["filters": filters]]
            let hook = FakeWebhook(
                id: FakeBase.makeID(prefix: "ach"), tableID: tableID, specification: specification,
                expires: webhookNow.addingTimeInterval(FakeWebhookStore.lifetime))
            hooks.hooks.append(hook)
            return hook.id
        }
    }

    /// Each webhook's expiry, by id, as the fake's clock reads it now (seconds from now; negative when disabled).
    public var webhookSecondsLeft: [String: Double] {
        locked {
            Dictionary(uniqueKeysWithValues: hooks.hooks.map { ($0.id, $0.expires.timeIntervalSince(webhookNow)) })
        }
    }

    /// Each hook keeps only its newest `count` payloads, as if the older had passed their 7 days.
    public func keepNewestPayloads(_ count: Int) {
        locked {
            for index in hooks.hooks.indices {
                let drop = max(0, hooks.hooks[index].payloads.count - count)
                hooks.hooks[index].payloads.removeFirst(drop)
                hooks.hooks[index].firstCursor += drop
            }
        }
    }

    /// The ids of the webhooks the base has now.
    public var webhookIDs: [String] { locked { hooks.hooks.map(\.id) } }
}
