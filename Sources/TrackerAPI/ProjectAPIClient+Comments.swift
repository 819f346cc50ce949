#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerNetwork

extension ProjectAPIClient {
    /// Airtable's largest page of comments.
    public static let commentPageSize = 100

    /// The comments route of a record of `table` (the projects' table when nil).
    private func commentsURL(_ recordID: String, table: String?) -> URL {
        URL(string: (table.map(url(ofTable:)) ?? tableURL).absoluteString + "/" + Self.escape(recordID) + "/comments")!
    }

    /// A 403 on a comments route names the scope it needs.
    private func commentScope(_ error: AppError, write: Bool) -> AppError {
        switch error {
        case .tableAccessDenied, .http(403, _):
            return .scopeMissing(
                scope: write ? "data.recordComments:write" : "data.recordComments:read",
                doing: write ? "adding a comment" : "reading comments")
        default: return error
        }
    }

    /// The record's comments, newest first as Airtable gives them, through every page; at most `limit` when given.
    public func comments(on recordID: String, limit: Int? = nil, inTable table: String? = nil) async -> Result<
        [RecordComment], AppError
    > {
        var comments: [RecordComment] = []
        var offset: String?
        repeat {
            let size = min(Self.commentPageSize, limit.map { $0 - comments.count } ?? Self.commentPageSize)
            var items = [("pageSize", String(size))]
            if let offset { items.append(("offset", offset)) }
            let url = URL(string: commentsURL(recordID, table: table).absoluteString + "?" + Self.encode(items))!
            let page = await send(request(url, method: "GET"), kind: .idempotent).mapError {
                commentScope($0, write: false)
            }
            switch page {
            case .failure(let error): return .failure(error)
            case .success(let data):
                guard let body = try? JSONParser.parse(data), let list = body["comments"]?.arrayValue else {
                    return .failure(.badResponse("comments is missing"))
                }
                for object in list {
                    guard let comment = RecordComment(object) else {
                        return .failure(.badResponse("a comment is malformed"))
                    }
                    comments.append(comment)
                }
                offset = body["offset"]?.stringValue
            }
        } while offset != nil && (limit.map { comments.count < $0 } ?? true)
        return .success(comments)
    }

    /// Adds one comment by the token's user (`user`), never two: a POST whose answer is lost is looked for (the same
    /// text, by this user, since the request) and not sent again.
    @_spi(Writing) public func addComment(
        _ text: String, to recordID: String, by user: String, inTable table: String? = nil
    ) async
        -> Result<
            RecordComment, AppError
        >
    {
        let started = network.now()
        // A minute's allowance for this machine's clock and Airtable's to differ; the same text by the same user within
        // it is taken for this one (the stricter reading: never a second comment).
        let since = ISOInstant.text(Date(timeIntervalSince1970: now().timeIntervalSince1970 - 60))
        let request = request(
            commentsURL(recordID, table: table), method: "POST", body: .object([("text", .string(text))]))
        switch await send(request, kind: .notIdempotent).mapError({ commentScope($0, write: true) }) {
        case .success(let data):
            if let body = try? JSONParser.parse(data), let comment = RecordComment(body) { return .success(comment) }
            return await findComment(text, on: recordID, by: user, since: since, startedAt: started, table: table)
        case .failure(.requestOutcomeUnknown):
            return await findComment(text, on: recordID, by: user, since: since, startedAt: started, table: table)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Deletes one comment of the token's user (an undo of `comment`). Sent again like a read should its answer be
    /// lost: a comment already gone (404) counts as deleted.
    @_spi(Writing) public func deleteComment(_ id: String, on recordID: String, inTable table: String? = nil) async
        -> Result<Void, AppError>
    {
        let url = commentsURL(recordID, table: table).appendingPathComponent(id)
        switch await send(request(url, method: "DELETE"), kind: .idempotent).mapError({ commentScope($0, write: true) })
        {
        case .success, .failure(.http(404, _)): return .success(())
        case .failure(let error): return .failure(error)
        }
    }

    /// Looks for the comment a POST with a lost answer would have made, with growing pauses.
    private func findComment(
        _ text: String, on recordID: String, by user: String, since: String, startedAt: Double, table: String?
    ) async -> Result<RecordComment, AppError> {
        await lookForLost(
            "the comment", checking: "whether it was added", startedAt: startedAt,
            find: { () async -> Result<RecordComment?, AppError> in
                await comments(on: recordID, limit: Self.commentPageSize, inTable: table).map { comments in
                    comments.first { $0.text == text && $0.author.id == user && $0.createdTime >= since }
                }
            }, unknown: { .commentOutcomeUnknown(waitedSeconds: $0) })
    }
}
