import Foundation

/// Everything tracker needs to reach one Airtable table, resolved from the secrets file and the environment.
public struct Configuration: Equatable, Sendable {
    public var token: String
    public var baseID: String
    public var table: String
    public var endpoint: URL
    public var requestsPerSecond = Configuration.defaultRequestsPerSecond
    public var timeoutSeconds = Configuration.defaultTimeoutSeconds
    public var retryBudgetSeconds = Configuration.defaultRetryBudgetSeconds
    /// What the secrets file says about the base's fields: renamed, absent, completion in a select.
    public var fieldSettings: FieldSettings = .template
    /// The secrets file that was read, if any.
    public var secretsPath: String?
    /// That file's permission bits, as read when it was loaded.
    public var secretsMode: UInt32? = nil
    /// Which keys came from environment variables, for `doctor` and hints.
    public var environmentKeys: [String]
    /// The profile in use, when the file has profiles.
    public var profile: String? = nil
    /// Every profile the file has.
    public var profiles: [String] = []
    /// Where the token came from, for `doctor`: "the secrets file", "AIRTABLE_TOKEN", or the token command.
    public var tokenOrigin = "the secrets file"

    public static let defaultEndpoint = URL(string: "https://api.airtable.com")!
    /// What a secrets file that leaves a setting out gets.
    public static let defaultRequestsPerSecond = 5.0
    public static let defaultTimeoutSeconds = 30
    public static let defaultRetryBudgetSeconds = 120

    /// Whether group or others may read the secrets file (it holds the token).
    public var isSecretsFileReadableByOthers: Bool { secretsMode.map(Self.isReadableByOthers) ?? false }

    /// Whether permission bits let group or others read a file.
    public static func isReadableByOthers(mode: UInt32) -> Bool { mode & 0o044 != 0 }

    /// The token as it may be shown: `pat…1234`.
    public var maskedToken: String { Self.mask(token) }

    /// Shows only a token's first three and last four characters.
    public static func mask(_ token: String) -> String {
        token.count < 12 ? "…" : "\(token.prefix(3))…\(token.suffix(4))"
    }
}

/// The keys a secrets file may hold; any other key is a typo and an error.
enum SecretsKey: String, CaseIterable {
    case token, tokenCommand, baseId, table, endpoint, requestsPerSecond, timeoutSeconds, retryBudgetSeconds, fields
    case profiles, `default`

    /// The keys a profile may set: every setting, but not other profiles.
    static var profileKeys: [SecretsKey] { allCases.filter { $0 != .profiles && $0 != .default } }

    /// The environment variable that overrides this key, if any.
    var environmentVariable: String? {
        switch self {
        case .token: "AIRTABLE_TOKEN"
        case .baseId: "AIRTABLE_BASE_ID"
        case .table: "AIRTABLE_TABLE"
        case .endpoint: "AIRTABLE_ENDPOINT_URL"
        default: nil
        }
    }
}
