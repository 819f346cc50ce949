import Foundation

/// One page of `GET /v0/{base}/{table}`: up to 100 records and, when more remain, the cursor to the next page.
struct RecordPage<Record: Decodable>: Decodable {
    var records: [Record]
    var offset: String?
}

/// A record of another table (a client), by id and the text of its primary field.
public struct LinkedRecord: Equatable, Sendable, Decodable {
    public var id: String
    public var name: String?

    private enum Keys: String, CodingKey { case id, fields }

    public init(id: String, name: String?) {
        self.id = id
        self.name = name
    }

    /// The primary field's name comes from the decoder's `userInfo[.primaryField]`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        let primary = decoder.userInfo[.primaryField] as? String ?? "Name"
        let fields = try? container.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
        name = (try? fields?.decodeIfPresent(String.self, forKey: FieldKey(primary))) ?? nil
    }
}

/// A coding key for a field's name, which only the base knows.
struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Airtable's error body in each shape recorded from the real service: `{"error": {"type", "message"}}`,
/// `{"error": "NOT_FOUND"}`, and the `{"errors": [{"error", "message"}]}` of 429s and the monthly quota.
struct ErrorEnvelope: Decodable {
    var error: AirtableErrorBody

    private enum Keys: String, CodingKey { case error, errors }
    private enum DetailKeys: String, CodingKey { case type, message, error }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if let type = try? container.decode(String.self, forKey: .error) {
            error = AirtableErrorBody(type: type, message: nil)
        } else if let detail = try? container.nestedContainer(keyedBy: DetailKeys.self, forKey: .error) {
            error = AirtableErrorBody(
                type: try? detail.decodeIfPresent(String.self, forKey: .type),
                message: try? detail.decodeIfPresent(String.self, forKey: .message))
        } else {
            var list = try container.nestedUnkeyedContainer(forKey: .errors)
            let first = try list.nestedContainer(keyedBy: DetailKeys.self)
            error = AirtableErrorBody(
                type: (try? first.decodeIfPresent(String.self, forKey: .error))
                    ?? (try? first.decodeIfPresent(String.self, forKey: .type)),
                message: try? first.decodeIfPresent(String.self, forKey: .message))
        }
    }

    /// The error in `data`, or nil when `data` is not an Airtable error body.
    static func parse(_ data: Data) -> AirtableErrorBody? {
        guard let body = try? JSONDecoder().decode(ErrorEnvelope.self, from: data).error,
            body.type != nil || body.message != nil
        else { return nil }
        return body
    }
}

extension Project: Decodable {
    private enum RecordKeys: String, CodingKey { case id, createdTime, fields }

    /// Decodes an Airtable record; empty cells are absent from `fields`, so every field is optional.
    ///
    /// Field names come from the decoder's `FieldMap` (`userInfo[.fieldMap]`), else the template's.
    public init(from decoder: any Decoder) throws {
        let map = decoder.userInfo[.fieldMap] as? FieldMap ?? .template
        let record = try decoder.container(keyedBy: RecordKeys.self)
        let fields = try record.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
        func value<T: Decodable>(_ type: T.Type, _ word: FieldMap.Word) throws -> T? {
            try fields.decodeIfPresent(type, forKey: FieldKey(map[word]))
        }
        func date(_ word: FieldMap.Word) throws -> CalendarDate? {
            guard let text = try value(String.self, word) else { return nil }
            guard let date = CalendarDate(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: FieldKey(map[word]), in: fields, debugDescription: "\"\(text)\" is not a YYYY-MM-DD date")
            }
            return date
        }
        self.init(
            id: try record.decode(String.self, forKey: .id),
            createdTime: try record.decodeIfPresent(String.self, forKey: .createdTime) ?? "",
            name: try value(String.self, .name),
            category: try value(String.self, .category),
            isComplete: try value(Bool.self, .complete) ?? false,
            kickoff: try date(.kickoff),
            due: try date(.due),
            lead: try value(Collaborator.self, .lead),
            team: try value([Collaborator].self, .team) ?? [],
            clients: try value([String].self, .client) ?? [],
            notes: try value(String.self, .notes))
    }
}

extension CodingUserInfoKey {
    /// The `FieldMap` a `Project` is decoded with.
    static let fieldMap = CodingUserInfoKey(rawValue: "tracker.fieldMap")!
    /// The primary field a `LinkedRecord` is decoded with.
    static let primaryField = CodingUserInfoKey(rawValue: "tracker.primaryField")!
}

extension DecodingError {
    /// A one-line account of what did not match, naming the JSON path.
    var summary: String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the body" : String(text.drop(while: { $0 == "." }))
        }
        switch self {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) is not \(Self.noun(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null, expected \(Self.noun(type))"
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the body has an unexpected shape"
        }
    }

    private static func noun(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Double.Type, is Int.Type: "a number"
        case is [Any].Type: "an array"
        default: "of the expected shape"
        }
    }
}
