#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations
import TrackerServe
import TrackerTeam

/// `tracker serve grants`: the operator's view of who is signed in to serve (the store every serve of the team
/// shares), and the way to end a grant at once on all of them.
enum ServeGrants {
    /// A grant as `--json` prints it: no token, no secret.
    static func object(_ grant: GrantSummary) -> JSONValue {
        .object([
            ("id", .string(grant.id)), ("user", .string(grant.user)), ("email", .string(or: grant.email)),
            ("client", .string(grant.client)), ("clientName", .string(grant.clientName)),
            ("created", .string(ISOInstant.secondsText(Date(timeIntervalSince1970: grant.created)))),
            ("lastUsed", .string(ISOInstant.secondsText(Date(timeIntervalSince1970: grant.lastUsed)))),
        ])
    }

    /// One line a grant: id, person, client, made, last used (tab-separated when piped).
    static func line(_ grant: GrantSummary) -> String {
        [
            grant.id, grant.email ?? grant.user, TextCells.folded(String(grant.clientName.prefix(60))),
            ISOInstant.secondsText(Date(timeIntervalSince1970: grant.created)),
            ISOInstant.secondsText(Date(timeIntervalSince1970: grant.lastUsed)),
        ].joined(separator: "\t")
    }
}

extension Runner {
    /// Lists the grants, or revokes one (`--revoke`) or a person's (`--person`), printing what was revoked.
    func serveGrants(_ options: Serve) async throws {
        let workspace = context.workspace(for: invocation, today: today)
        let configuration = try workspace.loadConfiguration()
        let signIn = SignIn(
            settings: SignIn.Settings(issuer: ""),
            store: try SignIn.store(
                for: configuration, in: workspace, directory: context.stateDirectory ?? context.cacheDirectory),
            airtable: nil)
        let grants = try signIn.grants()
        if options.revoke != nil || options.person != nil {
            let chosen = grants.filter { grant in
                grant.id == options.revoke || grant.user == options.person
                    || (grant.email != nil && grant.email?.lowercased() == options.person?.lowercased())
            }
            guard !chosen.isEmpty else {
                throw AppError.notFound(
                    "no grant " + (options.revoke.map { "with the id \($0)" } ?? "of \(options.person ?? "")"),
                    hint: "tracker serve grants lists them.")
            }
            for grant in chosen { try signIn.revokeGrant(grant.id) }
            return try output.standardOutput(chosen.map { $0.id + "\n" }.joined())
        }
        if options.json {
            return try output.standardOutput(JSONValue.array(grants.map(ServeGrants.object)).serialized() + "\n")
        }
        guard !grants.isEmpty else { return output.standardError("Nobody is signed in to serve.\n") }
        try output.standardOutput(grants.map { ServeGrants.line($0) + "\n" }.joined())
    }
}
