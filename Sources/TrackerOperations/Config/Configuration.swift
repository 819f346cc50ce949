#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel

/// Everything tracker needs to reach one Airtable table, resolved from the secrets file and the environment.
package struct Configuration: Equatable, Sendable {
    package var token: String
    package var baseID: String
    package var table: String
    package var endpoint: URL
    package var requestsPerSecond = Configuration.defaultRequestsPerSecond
    package var timeoutSeconds = Configuration.defaultTimeoutSeconds
    package var retryBudgetSeconds = Configuration.defaultRetryBudgetSeconds
    /// What the secrets file says about the base's fields: renamed, absent, completion in a select.
    package var fieldSettings: FieldSettings = .template
    /// Where the base keeps its tasks: the secrets file's `"tasks"`.
    package var tasks: TasksSettings = .template
    /// The attachment field `"fields"` maps as `"images"`: nil when unmapped, `.absent` for `null`.
    package var images: FieldSettings.Setting? = nil
    /// The secrets file that was read, if any.
    package var secretsPath: String?
    /// That file's permission bits, as read when it was loaded.
    package var secretsMode: UInt32? = nil
    /// Which keys came from environment variables, for `doctor` and hints.
    package var environmentKeys: [String]
    /// The profile in use, when the file has profiles.
    package var profile: String? = nil
    /// Every profile the file has.
    package var profiles: [String] = []
    /// The team's Redis that shares the budget and the locks across machines (`"redis"`); nil keeps them on this
    /// machine.
    package var redis: RedisAddress? = nil
    /// The team's copy (`"teamCopy"`, `TRACKER_TEAM_COPY`): the faces that stay share one copy of the tables in the
    /// team's Redis, kept by one poller every `teamCopyEvery` seconds. Off unless asked: it puts records in Redis.
    package var teamCopy = false
    /// The team's Redis when the team's copy is on (the one place that asks both): where this configuration's faces
    /// read their tables, and whether a face may leave libcurl unloaded until it polls or sends.
    package var teamCopyRedis: RedisAddress? { teamCopy ? redis : nil }
    package var teamCopyEvery = Configuration.defaultTeamCopyEvery
    /// `"maxAge"` (or `--max-age`): a one-shot read answers from a team's copy refreshed within this many seconds.
    package var maxAge: Double? = nil
    /// `tracker serve`'s settings (`"serve"`).
    package var serve = ServeSettings()
    /// The workspace's plan (`"plan"`, `"monthlyCalls"`, `TRACKER_PLAN`); nil when not told.
    package var plan: MonthlyPlan? = nil
    /// The part of the plan's month that what nobody asked for (polling, refreshing) may use.
    package var backgroundShare = Configuration.defaultBackgroundShare
    /// `"journal": "best-effort"`: a write whose journal entry cannot be kept goes on (said, not undoable); by default
    /// (`"required"`) it is not made.
    package var journalBestEffort = false
    /// `"assistants": {"approve": [...]}`: which assistant writes wait for a person; nil: the face's default (`serve`:
    /// deletions and changes; `mcp` over stdio: none but calls of more than ten records).
    package var approvals: ApprovalPolicy? = nil
    /// Where the token came from, for `doctor`: "the secrets file", "AIRTABLE_TOKEN", or the token command.
    package var tokenOrigin = "the secrets file"

    package static let defaultEndpoint = URL(string: "https://api.airtable.com")!
    /// The template's projects table: the table when neither the file nor AIRTABLE_TABLE names one, as init offers.
    package static let templateTable = "Design projects"
    /// What a secrets file that leaves a setting out gets.
    package static let defaultRequestsPerSecond = 5.0
    package static let defaultTimeoutSeconds = 30
    package static let defaultRetryBudgetSeconds = 120
    package static let defaultTeamCopyEvery = 10.0
    package static let defaultBackgroundShare = 0.5

    /// Whether group or others may read the secrets file (it holds the token).
    package var isSecretsFileReadableByOthers: Bool { secretsMode.map(Self.isReadableByOthers) ?? false }

    /// Whether permission bits let group or others read a file.
    package static func isReadableByOthers(mode: UInt32) -> Bool { mode & 0o044 != 0 }

    /// The token as it may be shown: `pat…1234`.
    package var maskedToken: String { TokenMask.masked(token) }

    /// Whose budget the requests draw on: this base at this endpoint, with this token.
    package var budgetOwner: BudgetOwner {
        BudgetOwner(endpoint: endpoint, baseID: baseID, token: token, requestsPerSecond: requestsPerSecond)
    }

    /// What the API client needs of this configuration.
    package var access: BaseAccess {
        BaseAccess(
            token: token, baseID: baseID, table: table, endpoint: endpoint, fieldSettings: fieldSettings, tasks: tasks,
            // Uploads go to Airtable's content host; an endpoint of one's own (a proxy, a fake) takes them as well.
            uploadEndpoint: endpoint == Self.defaultEndpoint ? BaseAccess.contentEndpoint : endpoint, images: images)
    }
    /// Each stored value given.
    package init(
        token: String, baseID: String, table: String, endpoint: URL,
        requestsPerSecond: Double = Configuration.defaultRequestsPerSecond,
        timeoutSeconds: Int = Configuration.defaultTimeoutSeconds,
        retryBudgetSeconds: Int = Configuration.defaultRetryBudgetSeconds, fieldSettings: FieldSettings = .template,
        tasks: TasksSettings = .template, images: FieldSettings.Setting? = nil, secretsPath: String?,
        secretsMode: UInt32? = nil, environmentKeys: [String], profile: String? = nil, profiles: [String] = [],
        redis: RedisAddress? = nil, tokenOrigin: String = "the secrets file"
    ) {
        self.token = token
        self.baseID = baseID
        self.table = table
        self.endpoint = endpoint
        self.requestsPerSecond = requestsPerSecond
        self.timeoutSeconds = timeoutSeconds
        self.retryBudgetSeconds = retryBudgetSeconds
        self.fieldSettings = fieldSettings
        self.tasks = tasks
        self.images = images
        self.secretsPath = secretsPath
        self.secretsMode = secretsMode
        self.environmentKeys = environmentKeys
        self.profile = profile
        self.profiles = profiles
        self.redis = redis
        self.tokenOrigin = tokenOrigin
    }
}

/// The keys a secrets file may hold; any other key is a typo and an error.
package enum SecretsKey: String, CaseIterable {
    case token, tokenCommand, baseId, table, endpoint, requestsPerSecond, timeoutSeconds, retryBudgetSeconds, fields,
        tasks, redis, redisCA, redisPasswordCommand, teamCopy, teamCopyEvery, maxAge, plan, monthlyCalls,
        backgroundShare, serve, journal, assistants
    case profiles, `default`

    /// The keys a profile may set: every setting, but not other profiles.
    package static var profileKeys: [SecretsKey] { allCases.filter { $0 != .profiles && $0 != .default } }

    /// The environment variable that overrides this key, if any.
    package var environmentVariable: String? {
        switch self {
        case .token: "AIRTABLE_TOKEN"
        case .baseId: "AIRTABLE_BASE_ID"
        case .table: "AIRTABLE_TABLE"
        case .endpoint: "AIRTABLE_ENDPOINT_URL"
        case .redis: "TRACKER_REDIS_URL"
        case .redisCA: "TRACKER_REDIS_CA"
        case .teamCopy: "TRACKER_TEAM_COPY"
        case .plan: "TRACKER_PLAN"
        default: nil
        }
    }
}
