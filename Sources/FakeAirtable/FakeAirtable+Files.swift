import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FakeAirtable {
    /// Airtable's upload route takes at most 5 MB of file (docs/airtable.md "Attachments").
    static let uploadLimit = 5 * 1024 * 1024

    /// Gives every attachment the base starts with some bytes on the download host (its recorded size).
    func keepFilesOfRecords() {
        locked {
            for table in base.tables {
                let fields = table.fields.filter { $0.type == "multipleAttachments" }.map(\.name)
                for record in table.records {
                    for name in fields {
                        for attachment in record.fields[name] as? [[String: Any]] ?? [] {
                            guard let id = attachment["id"] as? String, !files.has(id) else { continue }
                            files.keep(size: AnyJSON.number(attachment["size"] as Any).map { Int($0) } ?? 0, id: id)
                        }
                    }
                }
            }
        }
    }

    /// Makes every read sign attachment addresses on the download host.
    func signAttachments() {
        let files = self.files
        locked {
            for index in base.tables.indices {
                base.tables[index].sign = { id, filename in files.address(id: id, filename: filename) }
            }
        }
    }

    /// Keeps `data` as a new attachment of `record`'s field `field` (by name), as an upload would; for tests and the
    /// demo. Returns the attachment's id.
    @discardableResult
    public func attach(_ data: Data, filename: String, type: String, toRecord record: String, field: String) -> String {
        let id = FakeBase.makeID(prefix: "att")
        files.keep(data, id: id)
        locked {
            guard let (stored, table) = base.anyRecord(id: record), let index = base.tableIndex(table.id) else {
                return
            }
            var changed = stored
            var list = changed.fields[field] as? [[String: Any]] ?? []
            list.append(Self.attachmentObject(id: id, filename: filename, type: type, data: data))
            changed.fields[field] = list
            base.tables[index].replace(changed)
        }
        return id
    }

    /// An attachment as Airtable describes one: id, filename, size, type, and an image's dimensions.
    static func attachmentObject(id: String, filename: String, type: String, data: Data) -> [String: Any] {
        var object: [String: Any] = ["id": id, "filename": filename, "size": data.count, "type": type]
        if let (width, height) = pngDimensions(data) {
            object["width"] = width
            object["height"] = height
        }
        return object
    }

    /// A PNG's width and height, from its IHDR chunk.
    static func pngDimensions(_ data: Data) -> (Int, Int)? {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        let number = { (at: Int) in bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// `POST /v0/{baseId}/{recordId}/{fieldIdOrName}/uploadAttachment` (content.airtable.com): base64 JSON, up to
    /// 5 MB of file; the answer is the record with the whole cell keyed by the field's id.
    func upload(recordID: String, field nameOrID: String, _ body: Data) -> HTTPAction {
        guard let object = AnyJSON.parse(body) as? [String: Any], let type = object["contentType"] as? String,
            let text = object["file"] as? String, let filename = object["filename"] as? String
        else { return invalidRequest() }
        guard let data = Data(base64Encoded: text) else { return invalidRequest() }
        // UNCONFIRMED: the status and type Airtable sends for a file over the limit (docs/airtable.md "Attachments");
        // tracker never sends one.
        guard data.count <= Self.uploadLimit else {
            return error(413, "INVALID_REQUEST_TOO_LARGE", "Request body too large: files may be at most 5 MB")
        }
        let id = FakeBase.makeID(prefix: "att")
        let result = transaction { (draft: inout FakeBase) throws -> [String: Any] in
            // The route names no table: the record is found wherever it is.
            guard let (stored, table) = draft.anyRecord(id: recordID), let index = draft.tableIndex(table.id) else {
                throw WriteError(
                    status: 403, type: "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", message: Self.permissionMessage)
            }
            guard let field = table.fields.first(where: { $0.id == nameOrID || $0.name == nameOrID }) else {
                throw WriteError(type: "UNKNOWN_FIELD_NAME", message: "Unknown field name: \"\(nameOrID)\"")
            }
            guard field.type == "multipleAttachments" else {
                throw WriteError(
                    type: "INVALID_VALUE_FOR_COLUMN",
                    message: "Field \"\(field.name)\" cannot accept the provided value")
            }
            var record = stored
            var list = record.fields[field.name] as? [[String: Any]] ?? []
            list.append(Self.attachmentObject(id: id, filename: filename, type: type, data: data))
            record.fields[field.name] = list
            record.modifiedTimes[field.name] = Self.timestamp()
            draft.tables[index].replace(record)
            let shown = draft.tables[index].json(record, fields: [field.name])
            let cell = (shown["fields"] as? [String: Any])?[field.name] ?? []
            return ["id": record.id, "createdTime": record.createdTime, "fields": [field.id: cell]]
        }
        switch result {
        case .success(let answer):
            files.keep(data, id: id)
            return ok(answer)
        case .failure(let failure): return reject(failure)
        }
    }

    /// A write to an attachment field: the full list, existing attachments by id (kept as they are), new ones by
    /// address. An id the cell does not hold is refused (UNCONFIRMED: the stricter reading).
    static func attachmentCell(_ value: Any, old: Any?) throws -> [[String: Any]]? {
        guard let list = value as? [[String: Any]] else {
            throw WriteError(type: "INVALID_VALUE_FOR_COLUMN", message: "Cannot parse value for attachments")
        }
        let existing = old as? [[String: Any]] ?? []
        let cell = try list.map { item -> [String: Any] in
            if let id = item["id"] as? String {
                guard let kept = existing.first(where: { $0["id"] as? String == id }) else {
                    throw WriteError(
                        type: "INVALID_VALUE_FOR_COLUMN", message: "Attachment \(id) is not in this cell")
                }
                return kept
            }
            guard let url = item["url"] as? String else {
                throw WriteError(type: "INVALID_VALUE_FOR_COLUMN", message: "Cannot parse value for attachments")
            }
            let name = item["filename"] as? String ?? String(url.split(separator: "/").last ?? "file")
            return ["id": FakeBase.makeID(prefix: "att"), "url": url, "filename": name]
        }
        return cell.isEmpty ? nil : cell
    }
}
