extension FakeAirtable {
    /// A misbehaviour to apply to one request instead of, or on top of, its normal answer.
    public enum Fault: Sendable {
        /// Answer with this status and an Airtable error body in the shape Airtable uses for it; nothing is applied.
        case status(Int, type: String?, message: String? = nil, retryAfter: String? = nil)
        /// Answer with exactly this status and body; nothing is applied.
        case raw(Int, body: String)
        /// Reset the connection before answering; nothing is applied.
        case reset
        /// Apply the request, then close the connection without answering.
        case applyThenDrop
        /// Apply the request, then answer 200 with a body that is not JSON.
        case applyThenGarbage
        /// Say nothing, and apply the request this many seconds later, after the client has given up.
        case applyLate(seconds: Double)
        /// Apply the request, then send only half of the body.
        case truncatedBody
        /// Apply the request, then send a whole, well-framed compressed body that inflates to only half of what
        /// `airtable-uncompressed-content-length` says: a cut the transfer itself cannot see, only that header.
        case shortInflated
        /// Another client deletes these projects just before this request arrives, which is then answered as
        /// usual (a delete of one of them gets Airtable's 404).
        case deletedElsewhereFirst(ids: [String])
        /// Answer with the recorded page as real gzip bytes (made once with `gzip -9 -n`): 5.6 KB that inflate to
        /// 41.8 KB, as Airtable's do (its recording: 1,189 bytes for 3,737), whatever was asked.
        case recordedCompressedPage
        /// Answer as usual, but with `Transfer-Encoding: chunked` and no `Content-Length`.
        case chunked
        /// Never answer: hold the connection silent for this long.
        case stall(seconds: Double)
        /// Send the headers, then hold the body back for this long.
        case slowBody(seconds: Double)
        /// Answer normally, but only after this long.
        case delay(seconds: Double)
        /// Treat the request's page cursor as expired.
        case expireIterator
        /// Answer 200 with an HTML error page.
        case htmlPage
        /// Answer 200 with an empty body.
        case emptyBody
        /// Answer 200 with a body that is JSON but not a page of records.
        case wrongShape

        /// The 429 Airtable sends when a base gets more than five requests a second, as recorded.
        public static func rateLimited(retryAfter: String? = nil) -> Fault {
            .status(429, type: "RATE_LIMIT_REACHED", message: FakeAirtable.rateLimitMessage, retryAfter: retryAfter)
        }
    }
}
