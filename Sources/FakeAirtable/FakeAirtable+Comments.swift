import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FakeAirtable {
    /// `GET`/`POST /v0/{base}/{table}/{record}/comments` as docs/airtable.md "Comments" records them: newest first,
    /// pages of
    /// at most 100 with an `offset`, 403 without the comment scopes, `@[usr…]` mentions, and the author the token's
    /// user.
    func comments(_ method: String, table: Int, recordID: String, query: [(String, String)], body: Data)
        -> HTTPAction
    {
        // Not recorded: the exact 403 for a missing comments scope; the stricter reading is the one other scopes get.
        guard options.grantsCommentScopes else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        guard locked({ base.tables[table].record(id: recordID) }) != nil else { return notFoundRoute() }
        switch method {
        case "GET":
            let pageSize = query.last { $0.0 == "pageSize" }.map { Int($0.1) ?? -1 } ?? 100
            guard (1...100).contains(pageSize) else { return invalidRequest() }
            let start: Int
            if let offset = query.last(where: { $0.0 == "offset" })?.1 {
                guard offset.hasPrefix("cmtoffset"), let index = Int(offset.dropFirst(9)) else {
                    return error(422, "INVALID_OFFSET_VALUE", "The value of offset \(offset) is invalid")
                }
                start = index
            } else {
                start = 0
            }
            let newestFirst = Array(locked { recordComments[recordID] ?? [] }.reversed())
            let page = Array(newestFirst.dropFirst(start).prefix(pageSize))
            var answer: [String: Any] = ["comments": page]
            answer["offset"] = start + pageSize < newestFirst.count ? "cmtoffset\(start + pageSize)" : AnyJSON.Null()
            return ok(answer)
        case "POST":
            guard let object = AnyJSON.parse(body) as? [String: Any],
                let text = object["text"] as? String, !text.isEmpty
            else { return invalidRequest() }
            let comment = makeComment(text)
            locked { recordComments[recordID, default: []].append(comment) }
            return ok(comment)
        default:
            return notFoundRoute()
        }
    }

    /// `DELETE /v0/{base}/{table}/{record}/comments/{id}`: `{"id", "deleted": true}`. Airtable's documentation says
    /// a comment is deleted by its author; what another user's token is answered is not recorded, so the stricter
    /// reading: 403, as a missing permission. An id that is not there: 404.
    func deleteComment(_ id: String, table: Int, recordID: String) -> HTTPAction {
        guard options.grantsCommentScopes else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        guard locked({ base.tables[table].record(id: recordID) }) != nil else { return notFoundRoute() }
        let author = locked { (recordComments[recordID] ?? []).first { $0["id"] as? String == id }?["author"] }
        guard let author = author as? [String: Any] else { return notFoundRoute() }
        guard author["id"] as? String == options.user.id else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        locked { recordComments[recordID]?.removeAll { $0["id"] as? String == id } }
        return ok(["id": id, "deleted": true])
    }

    /// A new comment by the token's user, with the people it mentions.
    private func makeComment(_ text: String) -> [String: Any] {
        let people = locked { Array(base.collaborators.values) }
        func person(_ id: String) -> [String: Any]? { people.first { $0["id"] as? String == id } }
        var author: [String: Any] = ["id": options.user.id, "name": person(options.user.id)?["name"] ?? "Fake User"]
        author["email"] = options.user.email ?? person(options.user.id)?["email"]
        var mentioned: [String: Any] = [:]
        var rest = Substring(text)
        while let start = rest.firstRange(of: "@[usr") {
            guard let end = rest[start.upperBound...].firstIndex(of: "]") else { break }
            let id = "usr" + rest[start.upperBound..<end]
            if let known = person(id) {
                mentioned[id] = [
                    "type": "user", "id": id, "displayName": known["name"] ?? "", "email": known["email"] ?? "",
                ]
            }
            rest = rest[end...]
        }
        var comment: [String: Any] = [
            "id": FakeBase.makeID(prefix: "com"), "author": author, "text": text, "createdTime": Self.timestamp(),
            "lastUpdatedTime": AnyJSON.Null(),
        ]
        if !mentioned.isEmpty { comment["mentioned"] = mentioned }
        return comment
    }
}

/// A comment a test puts on a record before the fake starts.
public struct FakeComment: Sendable {
    public var id: String
    public var author: (id: String, name: String, email: String)
    public var text: String
    public var createdTime: String

    public init(id: String, author: (id: String, name: String, email: String), text: String, createdTime: String) {
        self.id = id
        self.author = author
        self.text = text
        self.createdTime = createdTime
    }

    /// Airtable's object for it (docs/airtable.md "Comments"), never edited.
    var object: [String: Any] {
        [
            "id": id, "author": ["id": author.id, "name": author.name, "email": author.email], "text": text,
            "createdTime": createdTime, "lastUpdatedTime": AnyJSON.Null(),
        ]
    }
}
