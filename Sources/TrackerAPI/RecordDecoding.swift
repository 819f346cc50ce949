#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerNetwork
import TrackerModel

/// One page of `GET /v0/{base}/{table}`: up to 100 records and, when more remain, the cursor to the next page.
struct RecordPage<Record> {
    var records: [Record]
    var offset: String?
}

/// Turns Airtable's record JSON into projects and linked records, naming the JSON path of anything unexpected.
enum RecordDecoding {
    /// A page of projects, read with the field names of `map`.
    public static func projects(_ data: Data, map: FieldMap) throws(AppError) -> RecordPage<Project> {
        try page(data) { (record, path) throws(AppError) in try project(record, path: path, map: map) }
    }

    /// A page of another table's records, named by `primaryField`.
    public static func linkedRecords(_ data: Data, primaryField: String) throws(AppError) -> RecordPage<LinkedRecord> {
        try page(data) { (record, path) throws(AppError) in
            LinkedRecord(
                id: try id(of: record, path: path), name: record["fields"]?[primaryField].flatMap(Self.text))
        }
    }

    /// One record as a project (the answer to a create or an update).
    static func project(_ data: Data, map: FieldMap) throws(AppError) -> Project {
        try project(try body(data), path: "", map: map)
    }

    /// The records of a batch write's answer.
    static func writtenProjects(_ data: Data, map: FieldMap) throws(AppError) -> [Project] {
        try projects(data, map: map).records
    }

    /// The parsed body, or what is wrong with it in a phrase.
    public static func body(_ data: Data) throws(AppError) -> JSONValue {
        if data.isEmpty { throw AppError.badResponse("the body is empty") }
        do {
            return try JSONParser.parse(data)
        } catch {
            let start = data.prefix(64).drop(while: { $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 })
            if start.first == UInt8(ascii: "<") { throw AppError.badResponse("got an HTML page instead of JSON") }
            throw AppError.badResponse("the body is not JSON")
        }
    }

    private static func page<Record>(
        _ data: Data, _ read: (JSONValue, String) throws(AppError) -> Record
    ) throws(AppError) -> RecordPage<Record> {
        let body = try body(data)
        guard body.objectMembers != nil else { throw AppError.badResponse("the body is not a JSON object") }
        guard let records = body["records"] else { throw AppError.badResponse("records is missing") }
        guard let list = records.arrayValue else { throw AppError.badResponse("records is not an array") }
        var decoded: [Record] = []
        decoded.reserveCapacity(list.count)
        for (index, record) in list.enumerated() { decoded.append(try read(record, "records[\(index)]")) }
        let offset = body["offset"]
        guard offset == nil || offset == .null || offset?.stringValue != nil else {
            throw AppError.badResponse("offset is not a string")
        }
        return RecordPage(records: decoded, offset: offset?.stringValue)
    }

    private static func id(of record: JSONValue, path: String) throws(AppError) -> String {
        guard record.objectMembers != nil else {
            throw AppError.badResponse("\(path.isEmpty ? "the body" : path) is not an object")
        }
        guard let id = record["id"]?.stringValue else { throw AppError.badResponse("\(dotted(path, "id")) is missing") }
        return id
    }

    /// A project from a record, its cells read by `map`; a cell of the wrong shape fails the whole answer.
    static func project(_ record: JSONValue, path: String, map: FieldMap) throws(AppError) -> Project {
        let id = try id(of: record, path: path)
        // One pass over the record's cells sorts them into tracker's words and the base's own fields: a listing reads
        // tens of thousands of records, and a lookup per word would compare every name nine times.
        let words = map.namedWords
        var found = [JSONValue?](repeating: nil, count: FieldMap.Word.allCases.count)
        var otherFields: [FieldValue] = []
        for (name, value) in record["fields"]?.objectMembers ?? [] {
            var isTrackers = false
            for pair in words where pair.name == name {
                found[pair.word.position] = value
                isTrackers = true
            }
            if !isTrackers { otherFields.append(FieldValue(name, Self.collaboratorsAsPeople(value))) }
        }
        func cell(_ word: FieldMap.Word) -> JSONValue? { found[word.position] }
        func where_(_ word: FieldMap.Word) -> String { dotted(dotted(path, "fields"), map[word] ?? "") }
        func string(_ word: FieldMap.Word) throws(AppError) -> String? {
            guard let value = cell(word), !value.isNull else { return nil }
            guard let text = value.stringValue else { throw AppError.badResponse("\(where_(word)) is not a string") }
            return text
        }
        func date(_ word: FieldMap.Word) throws(AppError) -> CalendarDate? {
            guard let text = try string(word) else { return nil }
            guard let date = CalendarDate(text) else {
                throw AppError.badResponse("\(where_(word)): \"\(text)\" is not a YYYY-MM-DD date")
            }
            return date
        }
        func people(_ value: JSONValue?, _ word: FieldMap.Word) throws(AppError) -> [Collaborator] {
            guard let value, !value.isNull else { return [] }
            let items = value.arrayValue ?? [value]
            var found: [Collaborator] = []
            for item in items {
                guard item.objectMembers != nil else { throw AppError.badResponse("\(where_(word)) is not a person") }
                found.append(
                    Collaborator(
                        id: item["id"]?.stringValue, name: item["name"]?.stringValue, email: item["email"]?.stringValue)
                )
            }
            return found
        }
        var isComplete = false
        switch map.completion {
        case .checkbox?:
            if let value = cell(.complete), !value.isNull {
                guard let flag = value.boolValue else {
                    throw AppError.badResponse("\(where_(.complete)) is not true or false")
                }
                isComplete = flag
            }
        case .select(_, let done, _)?: isComplete = try string(.complete) == done
        case nil: break
        }
        let clients: [String]
        if let value = cell(.client), !value.isNull {
            guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw AppError.badResponse("\(where_(.client)) is not an array of record ids")
            }
            clients = list.compactMap(\.stringValue)
        } else {
            clients = []
        }
        let name: String?
        if let value = cell(.name), !value.isNull {
            // A primary field may be a formula or an autonumber; its text is the name all the same.
            guard let text = Self.text(value) else { throw AppError.badResponse("\(where_(.name)) is not a string") }
            name = text
        } else {
            name = nil
        }
        return Project(
            id: id, createdTime: record["createdTime"]?.stringValue ?? "", name: name,
            category: try string(.category), isComplete: isComplete, kickoff: try date(.kickoff), due: try date(.due),
            lead: try people(cell(.lead), .lead).first, team: try people(cell(.team), .team), clients: clients,
            notes: try string(.notes), otherFields: otherFields)
    }

    /// A primary field's value as text: a string, or a number as Airtable would show it.
    public static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .number: return value.serialized()
        default: return nil
        }
    }

    /// Collaborators anywhere in a value, as the `{name, email}` of cli-spec.md; every other value as it came.
    static func collaboratorsAsPeople(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map(collaboratorsAsPeople))
        case .object(let members) where isCollaborator(members):
            return .object([
                ("name", members.first { $0.0 == "name" }?.1 ?? .null),
                ("email", members.first { $0.0 == "email" }?.1 ?? .null),
            ])
        default: return value
        }
    }

    /// A collaborator object: a `usr…` id with an email or a name, and nothing but the keys Airtable gives people.
    private static func isCollaborator(_ members: [(String, JSONValue)]) -> Bool {
        let keys: Set<String> = ["id", "email", "name", "permissionLevel", "profilePicUrl"]
        guard members.allSatisfy({ keys.contains($0.0) }),
            members.contains(where: { $0.0 == "email" || $0.0 == "name" })
        else { return false }
        let id = members.first { $0.0 == "id" }?.1.stringValue
        return id?.hasPrefix("usr") ?? false
    }

    private static func dotted(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
}
