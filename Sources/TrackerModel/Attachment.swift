/// One file in an attachment field, as Airtable describes it (docs/airtable.md "Attachments"). `object` keeps
/// Airtable's own
/// object whole, for `--json`; the rest is what tracker reads from it.
public struct Attachment: Equatable, Sendable {
    public var id: String
    public var filename: String
    /// Bytes; nil when Airtable has not said (an attachment still being processed).
    public var size: Int?
    public var type: String?
    /// The signed download address; it expires about two hours after the answer that carried it.
    public var url: String?
    public var width: Int?
    public var height: Int?
    public var object: JSONValue

    public init(
        id: String, filename: String, size: Int? = nil, type: String? = nil, url: String? = nil, width: Int? = nil,
        height: Int? = nil, object: JSONValue? = nil
    ) {
        self.id = id
        self.filename = filename
        self.size = size
        self.type = type
        self.url = url
        self.width = width
        self.height = height
        self.object =
            object
            ?? .object(
                [("id", .string(id)), ("filename", .string(filename))]
                    + (size.map { [("size", .number(Double($0)))] } ?? [])
                    + (type.map { [("type", .string($0))] } ?? []) + (url.map { [("url", .string($0))] } ?? []))
    }

    /// An attachment from Airtable's object; nil when it lacks an id.
    public init?(_ value: JSONValue) {
        guard let id = value["id"]?.stringValue else { return nil }
        func whole(_ member: JSONValue?) -> Int? { member?.numberValue.flatMap { Int(exactly: $0) } }
        // Older answers (the recorded fixture's) give dimensions only on the full-size thumbnail.
        let full = value["thumbnails"]?["full"]
        self.init(
            id: id, filename: value["filename"]?.stringValue ?? "", size: whole(value["size"]),
            type: value["type"]?.stringValue, url: value["url"]?.stringValue,
            width: whole(value["width"]) ?? whole(full?["width"]),
            height: whole(value["height"]) ?? whole(full?["height"]),
            object: value)
    }

    /// The attachments of a cell as `cellFormat=json` gives it; an empty cell is absent, so nil is none.
    public static func list(_ cell: JSONValue?) -> [Attachment] {
        cell?.arrayValue?.compactMap(Attachment.init) ?? []
    }

    /// `width×height` for an image whose dimensions Airtable gave; nil otherwise.
    public var dimensions: String? {
        guard let width, let height else { return nil }
        return "\(width)×\(height)"
    }
}

/// Sizes as people read them: `512 B`, `22.1 KB`, `4.8 MB` (powers of 1024, one decimal under ten).
public enum ByteCount {
    public static func text(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        var unit = "B"
        for next in ["KB", "MB", "GB", "TB"] where value >= 1024 {
            value /= 1024
            unit = next
        }
        let rounded = value < 10 ? (value * 10).rounded() / 10 : value.rounded()
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(unit)"
    }
}
