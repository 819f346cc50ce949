#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
// The webhook writes are the session's one exception: the doorbell is serve's, made and refreshed here alone.
@_spi(Webhooks) import TrackerAPI
import TrackerModel
import TrackerNetwork
import TrackerOperations
import TrackerSystem
import TrackerTeam

/// `serve`'s webhook that pings it (`<public-url>/airtable/ping`) when anything in the base changes: made once (its
/// signing key kept 0600 in the state directory, never logged), refreshed within its 7 days, made again when lost.
/// While it is kept, the team's pollers round on pings (and once an hour for a lost one) instead of on a timer.
package struct DoorbellKeeper: Sendable {
    let client: ProjectAPIClient
    let notificationURL: String
    let state: CacheDirectory?
    let pings: PingCheck
    let team: TeamCoordination?
    let owner: BudgetOwner
    let say: @Sendable (String) -> Void
    /// Told whether the doorbell rings now: serve's own copies then freshen on pings (and hourly), not every call.
    var armed: @Sendable (Bool) -> Void = { _ in }

    package init(
        client: ProjectAPIClient, notificationURL: String, state: CacheDirectory?, pings: PingCheck,
        team: TeamCoordination?, owner: BudgetOwner, say: @escaping @Sendable (String) -> Void
    ) {
        (self.client, self.notificationURL, self.state, self.pings) = (client, notificationURL, state, pings)
        (self.team, self.owner, self.say) = (team, owner, say)
    }

    /// How long the doorbell is said live in Redis; renewed every minute, so pollers go back to their timer within
    /// two minutes of the server's end.
    static let liveSeconds = 120

    /// The file its id and key are kept in, one per base, endpoint and URL.
    var fileName: String {
        "serve-doorbell-"
            + String(
                StableHash.of(owner.endpoint.absoluteString + " " + owner.baseID + " " + notificationURL), radix: 16)
            + ".json"
    }

    /// Keeps the doorbell until the task is cancelled.
    package func keep() async {
        var doorbell = load()
        var quietUntil = 0.0
        while !Task.isCancelled {
            // Airtable's clock where it is known: the hook's expiry is Airtable's.
            let now = client.network.serverClock.now() ?? Date().timeIntervalSince1970
            if doorbell == nil, now >= quietUntil {
                switch await client.createDoorbell(notificationURL: notificationURL) {
                case .success(let made):
                    doorbell = made
                    save(made)
                case .failure(let error):
                    // No scope, not the base's creator, ten hooks already: the copy is polled as before.
                    say("warning: Airtable's pings are off (\(error.message)); the copy is polled on a timer")
                    quietUntil = now + 3600
                }
            } else if let kept = doorbell, now >= quietUntil {
                // Kept as every hook is (`WebhookLife`); one whose expiry is unknown is refreshed to learn it.
                let life = WebhookLife(id: kept.id, expires: kept.expires)
                if kept.expires == nil || life.isDue(now: now) {
                    switch await life.refresh(through: client, now: now, always: true) {
                    case .renewed(let expires):
                        doorbell?.expirationTime =
                            expires.map { ISOInstant.text(Date(timeIntervalSince1970: $0)) } ?? kept.expirationTime
                        if let doorbell { save(doorbell) }
                    case .gone: doorbell = nil
                    case .kept: quietUntil = now + 3600
                    }
                }
            }
            pings.arm(doorbell?.secret)
            armed(doorbell != nil)
            if let team {
                try? TeamCopyStore.doorbell(
                    owner: owner, on: team.connection, liveFor: doorbell == nil ? 0 : Self.liveSeconds)
            }
            try? await Task.sleep(nanoseconds: 60_000_000_000)
        }
    }

    /// A good ping: every copy's poller of the base rounds now.
    func ring() {
        guard let team else { return }
        try? TeamCopyStore.ring(owner: owner, on: team.connection, liveFor: Self.liveSeconds)
    }

    private func load() -> Doorbell? {
        guard let data = state?.read(fileName),
            let value = try? JSONParser.parse(String(decoding: data, as: UTF8.self)),
            let id = value["id"]?.stringValue, let secret = value["secret"]?.stringValue,
            let key = Data(base64Encoded: secret)
        else { return nil }
        let doorbell = Doorbell(id: id, secret: Array(key), expirationTime: value["expirationTime"]?.stringValue)
        return (doorbell.expires ?? 0) > Date().timeIntervalSince1970 ? doorbell : nil
    }

    private func save(_ doorbell: Doorbell) {
        let value = JSONValue.object([
            ("id", .string(doorbell.id)), ("secret", .string(Data(doorbell.secret).base64EncodedString())),
            ("expirationTime", doorbell.expirationTime.map(JSONValue.string) ?? .null),
        ])
        state?.write(Data(value.serialized().utf8), to: fileName, durable: true)
    }
}
