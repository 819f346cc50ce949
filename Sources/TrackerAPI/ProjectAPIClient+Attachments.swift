#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
@_spi(Sending) import TrackerNetwork
import TrackerSystem
import TrackerModel

/// A record of any table, its cells as Airtable sent them.
public struct RawRecord: Sendable {
    public var id: String
    public var fields: JSONValue
}

/// Where a record keeps its files: the table (id or name), the record and its attachment field.
public struct AttachmentCell: Equatable, Sendable {
    public var table: String
    public var recordID: String
    public var field: String
    /// The field's id, from the schema: the upload route's answer is keyed by it.
    public var fieldID: String?

    public init(table: String, recordID: String, field: String, fieldID: String?) {
        self.table = table
        self.recordID = recordID
        self.field = field
        self.fieldID = fieldID
    }
}

/// A file to upload, checked: its base name, its size and the type its extension says.
public struct UploadFile: Equatable, Sendable {
    public var path: String
    public var filename: String
    public var size: Int
    public var contentType: String

    public init(path: String, filename: String, size: Int, contentType: String) {
        self.path = path
        self.filename = filename
        self.size = size
        self.contentType = contentType
    }
}

extension ProjectAPIClient {
    /// Airtable's upload route takes files up to 5 MB (docs/airtable.md "Attachments"); larger ones only by address.
    public static let uploadLimit = 5 * 1024 * 1024

    /// The attachments in `cell` now, in Airtable's order; `.notFound` when the record is not in the table.
    public func attachments(in cell: AttachmentCell) async -> Result<[Attachment], AppError> {
        await cellRecord(cell).flatMap { record in
            guard let record else {
                return .failure(.notFound("no record \(cell.recordID) in the table", hint: nil))
            }
            return .success(Attachment.list(record.fields[cell.field]))
        }
    }

    /// The record read by id with the one field; a listing, because Airtable's GET of one record would find a record
    /// of another table too.
    private func cellRecord(_ cell: AttachmentCell) async -> Result<RawRecord?, AppError> {
        let query = ListQuery(filterByFormula: Formula.recordID(is: cell.recordID), maxRecords: 1, fields: [cell.field])
        return await send(listRequest(url(ofTable: cell.table), query, offset: nil), kind: .idempotent).flatMap {
            data in
            Result { () throws(AppError) in try RecordDecoding.rawRecords(data).records.first }
        }
    }

    /// The upload as `--dry-run` shows it: the file's size where its bytes would go.
    public func plannedUpload(_ file: UploadFile, to cell: AttachmentCell) -> PlannedRequest {
        let url = uploadURL(cell)
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        let host = access.uploadEndpoint.absoluteString
        return PlannedRequest(
            method: "POST", path: path,
            body: .object([
                ("contentType", .string(file.contentType)),
                ("file", .string("<\(file.size) bytes of \(file.filename), base64>")),
                ("filename", .string(file.filename)),
            ]), host: host)
    }

    /// `POST {content host}/v0/{base}/{record}/{field}/uploadAttachment`.
    func uploadURL(_ cell: AttachmentCell) -> URL {
        URL(
            string: access.uploadEndpoint.absoluteString + "/v0/" + Self.escape(access.baseID) + "/"
                + Self.escape(cell.recordID) + "/" + Self.escape(cell.fieldID ?? cell.field) + "/uploadAttachment")!
    }

    /// Uploads `file` to `cell` and returns the new attachment; never uploads it twice.
    ///
    /// The upload is not idempotent (docs/airtable.md "Attachments"): when its answer is lost, the cell is read until
    /// an attachment with this
    /// filename and size appears that is not in `known` (the cell before, and this command's earlier uploads), or
    /// the lookup's time is spent; it is never sent again then.
    @_spi(Writing) public func uploadOnce(
        _ file: UploadFile, to cell: AttachmentCell, known: Set<String>,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil
    ) async -> Result<Attachment, AppError> {
        let body: Data
        do { body = try Self.uploadBody(file) } catch { return .failure(error) }
        var request = request(uploadURL(cell), method: "POST")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.body = body
        // 5 MB on a slow line may take longer than the timeout: only a stalled upload fails.
        request.isLongTransfer = true
        let total = Int64(body.count)
        if let progress { request.sendProgress = SendProgress { progress($0, total) } }
        let started = network.now()
        let sent = await network.send(request, kind: .notIdempotent)
        switch sent {
        case .success(let data):
            // A 2xx means it was added; the new one is the attachment not known before (Airtable's order is not
            // recorded, so it is not taken to be the last).
            if let added = try? Self.uploaded(data, cell: cell, file: file, known: known) { return .success(added) }
        case .failure(.requestOutcomeUnknown):
            break
        case .failure(.http(let status, _)) where status == 403 || status == 404:
            return .failure(explainUpload(status: status, cell: cell))
        case .failure(let error):
            return .failure(error)
        }
        return await lookForLost(
            "the upload of \(file.filename)", checking: "whether it arrived", startedAt: started,
            find: {
                await attachments(in: cell).map { list in
                    list.first { !known.contains($0.id) && $0.filename == file.filename && $0.size == file.size }
                }
            }, unknown: { .uploadOutcomeUnknown(filename: file.filename, waitedSeconds: $0) })
    }

    /// The new attachment in an upload's answer: its cell is keyed by the field's id (by the only key when the id is
    /// not known), and holds the earlier attachments as well.
    static func uploaded(_ data: Data, cell: AttachmentCell, file: UploadFile, known: Set<String>) throws(AppError)
        -> Attachment
    {
        let body = try RecordDecoding.body(data)
        guard let fields = body["fields"]?.objectMembers else { throw AppError.badResponse("fields is missing") }
        let value =
            cell.fieldID.flatMap { id in fields.first { $0.0 == id }?.1 }
            ?? fields.first { $0.0 == cell.field }?.1 ?? (fields.count == 1 ? fields[0].1 : nil)
        let fresh = Attachment.list(value).filter { !known.contains($0.id) }
        guard let added = fresh.last(where: { $0.filename == file.filename }) ?? fresh.last else {
            throw AppError.badResponse("the upload's answer has no new attachment")
        }
        return added
    }

    private func explainUpload(status: Int, cell: AttachmentCell) -> AppError {
        if status == 404 {
            return .notFound("record \(cell.recordID) or its field \"\(cell.field)\" is gone", hint: nil)
        }
        return .scopeMissing(scope: "data.records:write", doing: "upload files")
    }

    /// `{"contentType","file","filename"}` with the file base64-encoded as it is read, so that the body is the only
    /// copy of the file in memory (a 5 MB file makes a 6.7 MB body).
    static func uploadBody(_ file: UploadFile) throws(AppError) -> Data {
        let head = "{\"contentType\":" + JSONValue.string(file.contentType).serialized() + ",\"file\":\""
        let tail = "\",\"filename\":" + JSONValue.string(file.filename).serialized() + "}"
        let descriptor = POSIX.open(file.path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw AppError.file("\(file.path): \(POSIX.describe(errno))") }
        defer { close(descriptor) }
        var body = Data(capacity: head.utf8.count + (file.size + 2) / 3 * 4 + tail.utf8.count)
        body.append(contentsOf: Array(head.utf8))
        var encoder = Base64Encoder()
        var chunk = [UInt8](repeating: 0, count: 3 * 65536)
        var total = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { POSIX.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw AppError.file("\(file.path): \(POSIX.describe(errno))") }
            if count == 0 { break }
            total += count
            guard total <= uploadLimit else {
                throw AppError.usage("\(file.path) grew past 5 MB while it was read", command: "attach")
            }
            encoder.append(chunk[0..<count], to: &body)
        }
        encoder.finish(&body)
        body.append(contentsOf: Array(tail.utf8))
        return body
    }
}

/// Standard base64 (RFC 4648, padded), written in pieces as the bytes arrive.
struct Base64Encoder {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private var pending: [UInt8] = []

    mutating func append(_ bytes: ArraySlice<UInt8>, to output: inout Data) {
        let all = pending + bytes
        let whole = all.count / 3 * 3
        var encoded = [UInt8](repeating: 0, count: whole / 3 * 4)
        all.withUnsafeBufferPointer { input in
            var out = 0
            var index = 0
            while index < whole {
                let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                encoded[out] = Self.alphabet[Int(value >> 18 & 63)]
                encoded[out + 1] = Self.alphabet[Int(value >> 12 & 63)]
                encoded[out + 2] = Self.alphabet[Int(value >> 6 & 63)]
                encoded[out + 3] = Self.alphabet[Int(value & 63)]
                out += 4
                index += 3
            }
        }
        output.append(contentsOf: encoded)
        pending = Array(all[whole...])
    }

    mutating func finish(_ output: inout Data) {
        guard !pending.isEmpty else { return }
        let first = pending[0]
        let second = pending.count > 1 ? pending[1] : 0
        var tail: [UInt8] = [Self.alphabet[Int(first >> 2)], Self.alphabet[Int((first & 3) << 4 | second >> 4)]]
        tail.append(pending.count > 1 ? Self.alphabet[Int((second & 15) << 2)] : UInt8(ascii: "="))
        tail.append(UInt8(ascii: "="))
        output.append(contentsOf: tail)
        pending = []
    }
}

extension ProjectAPIClient {
    /// Sets `cell` to exactly the attachments `keeping` (by id), removing the rest; returns the cell as it is then.
    /// Setting a cell to a given list is idempotent, so a lost answer is retried like a read.
    @_spi(Writing) public func keepAttachments(_ keeping: [String], in cell: AttachmentCell) async -> Result<
        [Attachment], AppError
    > {
        await send(plannedKeep(keeping, in: cell), kind: .idempotent).flatMap { data in
            Result { () throws(AppError) in
                let body = try RecordDecoding.body(data)
                return Attachment.list(body["fields"]?[cell.field])
            }
        }
    }

    /// The PATCH that keeps `keeping` in `cell`, as `--dry-run` shows it.
    public func plannedKeep(_ keeping: [String], in cell: AttachmentCell) -> PlannedRequest {
        let list = JSONValue.array(keeping.map { .object([("id", .string($0))]) })
        return PlannedRequest(
            method: "PATCH", path: path(ofTable: cell.table) + "/" + Self.escape(cell.recordID),
            body: .object([("fields", .object([(cell.field, list)]))]))
    }

    /// A GET of a signed download address into `descriptor`: no token, no pacing (the host is not the API).
    public func download(_ url: URL, into descriptor: Int32, progress: @escaping @Sendable (Int64) -> Void) async
        -> Result<Void, AppError>
    {
        var request = HTTPRequest(url: url, method: "GET")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        return await network.download(request, into: descriptor, progress: progress)
    }
}

extension ProjectAPIClient {
    /// Every record of another table of the base (the Clients), all pages, its cells as Airtable sent them.
    public func rawRecords(in table: String, query: ListQuery) async -> Result<[RawRecord], AppError> {
        await gathering { onPage in try await listRawRecords(in: table, query, onPage: onPage) }
    }

    /// Streams the records of any table as Airtable sent them, a page at a time.
    public func listRawRecords(in table: String, _ query: ListQuery, onPage: ([RawRecord]) async throws -> Void)
        async throws
    {
        try await streamPages(
            { offset in
                await send(listRequest(url(ofTable: table), query, offset: offset), kind: .idempotent).flatMap { data in
                    Result { () throws(AppError) in try RecordDecoding.rawRecords(data) }
                }
            }, id: \.id, onPage: onPage)
    }
}
