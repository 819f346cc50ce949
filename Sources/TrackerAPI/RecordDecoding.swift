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
    /// A page of records of any table as Airtable sent them: id and the `fields` object.
    static func rawRecords(_ data: Data) throws(AppError) -> RecordPage<RawRecord> {
        try page(data) { (record, path) throws(AppError) in
            RawRecord(id: try id(of: record, path: path), fields: record["fields"] ?? .object([]))
        }
    }

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

    fileprivate static func id(of record: JSONValue, path: String) throws(AppError) -> String {
        guard record.objectMembers != nil else {
            throw AppError.badResponse("\(path.isEmpty ? "the body" : path) is not an object")
        }
        guard let id = record["id"]?.stringValue else { throw AppError.badResponse("\(dotted(path, "id")) is missing") }
        return id
    }

    /// A project from a record, its cells read by `map`; a cell of the wrong shape fails the whole answer.
    static func project(_ record: JSONValue, path: String, map: FieldMap) throws(AppError) -> Project {
        let cells = try RecordCells(record, path: path, map: map)
        return Project(
            id: cells.id, createdTime: record["createdTime"]?.stringValue ?? "", name: try cells.name(),
            category: try cells.string(.category), isComplete: try cells.isComplete(),
            kickoff: try cells.date(.kickoff),
            due: try cells.date(.due), lead: try cells.people(.lead).first, team: try cells.people(.team),
            clients: try cells.links(.client), notes: try cells.string(.notes), otherFields: cells.otherFields)
    }

    /// A page of tasks, read with the field names of `map`.
    static func tasks(_ data: Data, map: TaskFieldMap) throws(AppError) -> RecordPage<ProjectTask> {
        try page(data) { (record, path) throws(AppError) in try task(record, path: path, map: map) }
    }

    /// One record as a task (the answer to a create).
    static func task(_ data: Data, map: TaskFieldMap) throws(AppError) -> ProjectTask {
        try task(try body(data), path: "", map: map)
    }

    /// A task from a record, its cells read by `map` with the same rules as a project's.
    static func task(_ record: JSONValue, path: String, map: TaskFieldMap) throws(AppError) -> ProjectTask {
        let cells = try RecordCells(record, path: path, map: map)
        return ProjectTask(
            id: cells.id, createdTime: record["createdTime"]?.stringValue ?? "", name: try cells.name(),
            projects: try cells.links(.project), isComplete: try cells.isComplete(),
            estimate: try cells.number(.estimate), assignee: try cells.people(.assignee).first,
            notes: try cells.string(.notes), otherFields: cells.otherFields)
    }

    /// One record's cells sorted into a table's words and the base's own fields, read with one set of rules for every
    /// table: a cell of the wrong shape fails the whole answer, naming its JSON path.
    struct RecordCells<Word: TableWord> {
        let id: String
        let map: TableFields<Word>
        let path: String
        private var found: [JSONValue?]
        private(set) var otherFields: [FieldValue] = []

        init(_ record: JSONValue, path: String, map: TableFields<Word>) throws(AppError) {
            id = try RecordDecoding.id(of: record, path: path)
            self.map = map
            self.path = path
            // One pass over the record's cells: a listing reads tens of thousands of records, and a lookup per word
            // would compare every name with each word.
            let words = map.namedWords
            found = [JSONValue?](repeating: nil, count: Word.allCases.count)
            for (name, value) in record["fields"]?.objectMembers ?? [] {
                var isTrackers = false
                for pair in words where pair.name == name {
                    found[pair.word.position] = value
                    isTrackers = true
                }
                if !isTrackers { otherFields.append(FieldValue(name, RecordDecoding.collaboratorsAsPeople(value))) }
            }
        }

        func cell(_ word: Word) -> JSONValue? { found[word.position] }

        private func where_(_ word: Word) -> String { dotted(dotted(path, "fields"), map[word] ?? "") }

        func string(_ word: Word) throws(AppError) -> String? {
            guard let value = cell(word), !value.isNull else { return nil }
            guard let text = value.stringValue else { throw AppError.badResponse("\(where_(word)) is not a string") }
            return text
        }

        func date(_ word: Word) throws(AppError) -> CalendarDate? {
            guard let text = try string(word) else { return nil }
            guard let date = CalendarDate(text) else {
                throw AppError.badResponse("\(where_(word)): \"\(text)\" is not a YYYY-MM-DD date")
            }
            return date
        }

        func number(_ word: Word) throws(AppError) -> Double? {
            guard let value = cell(word), !value.isNull else { return nil }
            guard let number = value.numberValue else { throw AppError.badResponse("\(where_(word)) is not a number") }
            return number
        }

        func people(_ word: Word) throws(AppError) -> [Collaborator] {
            guard let value = cell(word), !value.isNull else { return [] }
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

        func links(_ word: Word) throws(AppError) -> [String] {
            guard let value = cell(word), !value.isNull else { return [] }
            guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw AppError.badResponse("\(where_(word)) is not an array of record ids")
            }
            return list.compactMap(\.stringValue)
        }

        func isComplete() throws(AppError) -> Bool {
            switch map.completion {
            case .checkbox?:
                guard let value = cell(Word.complete), !value.isNull else { return false }
                guard let flag = value.boolValue else {
                    throw AppError.badResponse("\(where_(Word.complete)) is not true or false")
                }
                return flag
            case .select(_, let done, _)?: return try string(Word.complete) == done
            case nil: return false
            }
        }

        /// The primary field's text; it may be a formula or an autonumber, whose text is the name all the same.
        func name() throws(AppError) -> String? {
            guard let value = cell(Word.name), !value.isNull else { return nil }
            guard let text = RecordDecoding.text(value) else {
                throw AppError.badResponse("\(where_(Word.name)) is not a string")
            }
            return text
        }
    }

    /// A primary field's value as text: a string, or a number as Airtable would show it.
    public static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .number: return value.serialized()
        default: return nil
        }
    }

    /// Collaborators anywhere in a value, as the `{name, email}` of docs/contract.md; every other value as it came.
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

    fileprivate static func dotted(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
}
