import TrackerModel

/// `tracker serve`'s settings from the secrets file (`"serve": {"listen", "publicUrl", "origins", "root"}`); its flags
/// override each.
package struct ServeSettings: Equatable, Sendable {
    /// `ADDR:PORT` (an IPv4 address); default `127.0.0.1:8765`.
    package var listen: String?
    /// Where clients reach the server through the team's reverse proxy: `https://tracker.example.com`.
    package var publicURL: String?
    /// Origins a browser may call the server from, besides its own.
    package var origins: [String] = []
    /// The directory the file tools work in, on the server's disk.
    package var root: String?
    /// The Airtable OAuth integration people sign in through.
    package var airtableOAuth: AirtableOAuthSetting?

    package init() {}

    /// The listening address of `listen` (`ADDR:PORT`); nil when it is not one.
    package static func address(_ listen: String) -> (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = String(listen[..<colon])
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ Int($0).map { (0...255).contains($0) } ?? false }) else {
            return nil
        }
        return (host, port)
    }

    /// Whether `url` is a URL a client can be sent to: `https://` or `http://` with a host, no query or fragment.
    package static func isPublicURL(_ url: String) -> Bool {
        guard let scheme = ["https://", "http://"].first(where: url.lowercased().hasPrefix) else { return false }
        let rest = url.dropFirst(scheme.count)
        return !rest.isEmpty && !rest.hasPrefix("/") && !rest.contains("?") && !rest.contains("#")
            && !rest.contains(" ")
    }
}

extension Resolver {
    /// `"serve"`: an object of `listen`, `publicUrl`, `origins` and `root`, each checked here.
    package func serve(into configuration: inout Configuration) throws {
        guard let given = values[.serve], given != .null else { return }
        guard case .object(let members) = given else {
            throw AppError.configuration("\"serve\" in \(origin) must be an object", hint: Self.serveHint)
        }
        var settings = ServeSettings()
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            switch (key, value) {
            case ("listen", .string(let listen)) where ServeSettings.address(listen) != nil: settings.listen = listen
            case ("publicUrl", .string(let url)) where ServeSettings.isPublicURL(url): settings.publicURL = url
            case ("origins", .array(let items)):
                settings.origins = try items.map { item in
                    guard case .string(let origin) = item, ServeSettings.isPublicURL(origin) else {
                        throw AppError.configuration(
                            "\"serve\".\"origins\" in \(origin) must list origins such as \"https://claude.ai\"",
                            hint: nil)
                    }
                    return origin
                }
            case ("root", .string(let root)) where !root.isEmpty: settings.root = root
            case ("airtableOAuth", _): settings.airtableOAuth = try AirtableOAuthSetting(value, origin: origin)
            case ("listen", _), ("publicUrl", _), ("root", _):
                throw AppError.configuration(
                    "\"serve\".\"\(key)\" in \(origin) is not one tracker can use", hint: Self.serveHint)
            default:
                throw AppError.configuration(
                    "unknown key \"\(key.prefix(40))\" in \"serve\" in \(origin)", hint: Self.serveHint)
            }
        }
        configuration.serve = settings
    }

    static let serveHint =
        "Use \"serve\": {\"listen\": \"127.0.0.1:8765\", \"publicUrl\": \"https://tracker.example.com\", \"origins\": [], \"root\": \"/srv/files\", \"airtableOAuth\": {…}}."
}

/// `"serve": {"airtableOAuth": {"clientId", "clientSecret" | "clientSecretCommand", "url"}}`: the Airtable OAuth
/// integration the operator registered, whose redirect URI is `<public-url>/oauth/airtable/callback`.
package struct AirtableOAuthSetting: Equatable, Sendable {
    package var clientID: String
    package var clientSecret: String?
    /// A program that prints the secret (as `tokenCommand` prints the token).
    package var clientSecretCommand: [String]?
    /// Where Airtable's `/oauth2/v1/authorize` and `/oauth2/v1/token` are: `https://airtable.com`.
    package var url = "https://airtable.com"

    package init(clientID: String) { self.clientID = clientID }

    static let hint =
        "Use \"airtableOAuth\": {\"clientId\": \"…\", \"clientSecret\": \"…\" (or \"clientSecretCommand\": [\"pass\", \"show\", \"…\"]), \"url\": \"https://airtable.com\"}: the integration you registered at airtable.com/create/oauth."

    init(_ value: SecretsValue, origin: String) throws(AppError) {
        func refused(_ what: String) -> AppError {
            .configuration("\"serve\".\"airtableOAuth\" in \(origin) \(what)", hint: Self.hint)
        }
        guard case .object(let members) = value else { throw refused("must be an object") }
        guard case .string(let id)? = members["clientId"], !id.isEmpty else { throw refused("needs \"clientId\"") }
        self.init(clientID: id)
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            switch (key, member) {
            case ("clientId", _): break
            case ("clientSecret", .string(let secret)) where !secret.isEmpty: clientSecret = secret
            case ("clientSecretCommand", .array(let words)):
                let argv = words.compactMap { word -> String? in
                    if case .string(let text) = word { return text }
                    return nil
                }
                guard !argv.isEmpty, argv.count == words.count else {
                    throw refused(
                        "\"clientSecretCommand\" must be a list of words, such as [\"pass\", \"show\", \"airtable/oauth\"]"
                    )
                }
                clientSecretCommand = argv
            case ("url", .string(let url)) where ServeSettings.isPublicURL(url):
                self.url = String(url.reversed().drop { $0 == "/" }.reversed())
            default: throw refused("has \"\(key.prefix(40))\", which is not one tracker can use")
            }
        }
        if clientSecret != nil && clientSecretCommand != nil {
            throw refused("has both \"clientSecret\" and \"clientSecretCommand\": keep one")
        }
    }
}
