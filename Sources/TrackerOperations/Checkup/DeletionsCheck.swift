#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel

/// `doctor`'s finding on what tells `board`, `mcp` and `changes` of deleted records: the base's webhook, or a listing
/// of ids every 5 minutes (docs/contract.md "What changed, not the whole table"). It looks; it never makes a webhook.
enum DeletionsCheck {
    static func run(_ configuration: Configuration, client: ProjectAPIClient, surroundings: SessionSurroundings) async
        -> DoctorCheck
    {
        switch await client.listWebhooks() {
        case .failure(.http(404, _)):
            return DoctorCheck(
                name: "deletions",
                detail:
                    "listed by ids every 5 minutes: \(configuration.endpoint.absoluteString) has no webhook routes, so board and mcp show a deleted record within 5 minutes"
            )
        case .failure(let error):
            guard case .http(403, _) = error else { return .failed("deletions", error) }
            var check = DoctorCheck(
                name: "deletions",
                detail:
                    "listed by ids every 5 minutes: the token may not manage webhooks, so board and mcp show a deleted record within 5 minutes"
            )
            check.notes.append(
                "Give the token the scope webhook:manage (its user the base's creator) for deletions at the next refresh."
            )
            return check
        case .success(let hooks):
            let remembered = Session.webhookMemory(configuration, in: surroundings).recall()
            let now = client.serverClock.now() ?? Date().timeIntervalSince1970
            let usable = hooks.filter { $0.isUsable(at: now) }
            guard let hook = usable.first(where: { $0.id == remembered }) ?? usable.first else {
                return DoctorCheck(
                    name: "deletions",
                    detail:
                        "no webhook yet: board, mcp and changes make the base's one when they start (creator's permission needed; else ids every 5 minutes)"
                )
            }
            let expires = hook.expirationTime.map { "; it lasts until \($0) and is refreshed while used" } ?? ""
            return DoctorCheck(
                name: "deletions",
                detail:
                    "the base's webhook \(hook.id) tells board, mcp and changes what changed and what was deleted (\(hooks.count) of 10 webhooks\(expires))"
            )
        }
    }
}
