#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// What the client needs to reach one Airtable table: where, which, with which token, and the base's field names.
public struct BaseAccess: Equatable, Sendable {
    public var token: String
    public var baseID: String
    public var table: String
    public var endpoint: URL
    /// What the user said about the base's fields: renamed, absent, completion in a select.
    public var fieldSettings: FieldSettings
    /// What the user said about the Tasks table: where it is and its fields, or that the base has none.
    public var tasks: TasksSettings
    /// Where files are uploaded: Airtable's content host, or the endpoint when the secrets file sets one (a proxy, a
    /// test's fake, the demo).
    public var uploadEndpoint: URL
    /// The attachment field the secrets file maps as `"images"`: nil when it says nothing, `.absent` for `null`.
    public var images: TableSettings<ProjectWord>.Setting?

    public init(
        token: String, baseID: String, table: String, endpoint: URL, fieldSettings: FieldSettings = .template,
        tasks: TasksSettings = .template, uploadEndpoint: URL? = nil, images: TableSettings<ProjectWord>.Setting? = nil
    ) {
        self.token = token
        self.baseID = baseID
        self.table = table
        self.endpoint = endpoint
        self.fieldSettings = fieldSettings
        self.tasks = tasks
        self.uploadEndpoint = uploadEndpoint ?? endpoint
        self.images = images
    }

    /// Airtable's host for uploads (docs/airtable.md "Attachments").
    public static let contentEndpoint = URL(string: "https://content.airtable.com")!
}
