/// One comment on a record (docs/airtable.md "Comments"), with Airtable's object kept as it came for JSON output.
public struct RecordComment: Equatable, Sendable {
    public var id: String
    public var author: Collaborator
    /// The text as Airtable keeps it: a mention is `@[usr…]`.
    public var text: String
    public var createdTime: String
    /// nil until the comment is edited.
    public var lastUpdatedTime: String?
    /// Airtable's object, exactly.
    public var object: JSONValue

    /// The comment in an Airtable comment object; nil when it lacks an id, text or creation time.
    public init?(_ object: JSONValue) {
        guard let id = object["id"]?.stringValue, let text = object["text"]?.stringValue,
            let created = object["createdTime"]?.stringValue
        else { return nil }
        let author = object["author"]
        self.id = id
        self.author = Collaborator(
            id: author?["id"]?.stringValue, name: author?["name"]?.stringValue, email: author?["email"]?.stringValue)
        self.text = text
        self.createdTime = created
        self.lastUpdatedTime = object["lastUpdatedTime"]?.stringValue
        self.object = object
    }
}
