#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerModel
import TrackerOperations
import TrackerTeam

extension SignIn {
    /// The file the sign-ins are kept in without Redis: in the state directory, 0600.
    package static func filePath(in directory: String?) -> String? { directory.map { $0 + "/serve-sign-in.json" } }

    /// serve's sign-in as its configuration makes it: the Airtable integration (`serve.airtableOAuth`, its secret
    /// resolved), the store it keeps grants in, the issuer. Without an
    /// integration serve still starts: nobody can sign in, and it says why.
    package static func forServe(
        configuration: Configuration, client: ProjectAPIClient, store: any SignInStore, publicURL: String?,
        readOnly: Bool
    ) throws(AppError) -> SignIn {
        let issuer = publicURL ?? "http://127.0.0.1"
        var settings = Settings(issuer: issuer)
        settings.readOnly = readOnly
        settings.baseName = configuration.baseID + ", table \"" + configuration.table + "\""
        var grantor: AirtableGrantor?
        if let setting = configuration.serve.airtableOAuth {
            var secret = setting.clientSecret
            if let command = setting.clientSecretCommand {
                secret = try TokenCommand.run(
                    command, setting: "\"airtableOAuth\".\"clientSecretCommand\"", secret: "client secret",
                    instead: "set \"clientSecret\" instead"
                ).get()
            }
            let integration = AirtableIntegration(
                clientID: setting.clientID, clientSecret: secret, url: setting.url,
                redirectURI: issuer + "/oauth/airtable/callback")
            grantor = .airtable(client, integration)
        } else {
            settings.unavailable =
                "no Airtable OAuth integration is set up (\"serve\": {\"airtableOAuth\": {\"clientId\", \"clientSecret\", \"url\"}})"
        }
        if let reason = Sealing.unavailableReason { settings.unavailable = reason }
        return SignIn(settings: settings, store: store, airtable: grantor)
    }
}

extension SignIn {
    /// Where serve keeps its sign-ins for `configuration`: the team's Redis when there is one (every serve behind the
    /// proxy signs the same people in), else a 0600 file in `directory` (the state directory).
    package static func store(
        for configuration: Configuration, in workspace: Workspace, directory: CacheDirectory?
    ) throws -> any SignInStore {
        if configuration.redis != nil, let team = workspace.coordination(configuration) as? TeamCoordination {
            return RedisSignInStore(
                connection: team.connection, baseID: configuration.baseID,
                redis: configuration.redis?.display ?? "the team's Redis")
        }
        return try FileSignInStore(path: filePath(in: directory?.path))
    }
}
