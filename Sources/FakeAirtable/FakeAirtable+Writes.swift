import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

extension FakeAirtable {
    /// A write Airtable refuses as a whole; nothing of the request is applied.
    struct WriteError: Error {
        var status = 422
        var type: String
        var message: String
    }

    func reject(_ failure: WriteError) -> HTTPAction { error(failure.status, failure.type, failure.message) }

    /// Runs `body` on a copy of the base and keeps the copy only if it succeeds, so a write applies fully or not at all.
    /// `source` is who the hooks' payloads say made it.
    func transaction<T>(source: String = "publicApi", _ body: (inout FakeBase) throws -> T) -> Result<T, WriteError> {
        locked {
            var draft = base
            do {
                let value = try body(&draft)
                base = draft
                recordWebhookPayloads(source: source)
                return .success(value)
            } catch let failure as WriteError {
                return .failure(failure)
            } catch {
                return .failure(WriteError(type: "INVALID_REQUEST_UNKNOWN", message: "\(error)"))
            }
        }
    }

    private static let tooMany = WriteError(
        type: "INVALID_RECORDS",
        message:
            "You must provide an array of up to 10 record objects, each with an 'id' ID field and a 'fields' object for cell values."
    )

    // MARK: - Create

    /// `POST /v0/{base}/{table}`: the single-record form or up to ten `records`.
    func create(_ table: Int, _ body: Data) -> HTTPAction {
        guard let object = AnyJSON.parse(body) as? [String: Any] else {
            return invalidRequest()
        }
        let typecast = object["typecast"] as? Bool ?? false
        let batch = object["records"] as? [[String: Any]]
        let inputs = batch?.map { $0["fields"] as? [String: Any] } ?? [object["fields"] as? [String: Any]]
        guard !inputs.isEmpty, inputs.count <= 10, inputs.allSatisfy({ $0 != nil }) else { return reject(Self.tooMany) }
        let result = transaction { (draft: inout FakeBase) throws -> [[String: Any]] in
            try inputs.compactMap { $0 }.map { input -> [String: Any] in
                var record = StoredRecord(
                    id: FakeBase.makeID(prefix: "rec"), createdTime: Self.timestamp(), fields: [:])
                try Self.write(input, to: &record, table: table, typecast: typecast, in: &draft)
                draft.tables[table].insert(record)
                draft.keepInverseLinks(table: table, recordID: record.id, old: nil, new: record.fields)
                return draft.tables[table].json(record, fields: nil)
            }
        }
        switch result {
        case .success(let created):
            return batch != nil ? ok(["records": created] as [String: Any]) : ok(created[0])
        case .failure(let failure): return reject(failure)
        }
    }

    // MARK: - Update and upsert

    /// `PATCH|PUT /v0/{base}/{table}/{id}` or `PATCH|PUT /v0/{base}/{table}` with up to ten `records`, optionally
    /// `performUpsert`.
    func update(_ table: Int, id: String?, _ body: Data, destructive: Bool) -> HTTPAction {
        guard let object = AnyJSON.parse(body) as? [String: Any] else {
            return invalidRequest()
        }
        let typecast = object["typecast"] as? Bool ?? false
        if let id {
            guard let fields = object["fields"] as? [String: Any] else { return invalidRequest() }
            let result = transaction { (draft: inout FakeBase) throws -> [String: Any] in
                try Self.change(id, fields, table: table, destructive: destructive, typecast: typecast, in: &draft)
            }
            switch result {
            case .success(let record): return ok(record)
            case .failure(let failure): return reject(failure)
            }
        }
        guard let inputs = object["records"] as? [[String: Any]], !inputs.isEmpty, inputs.count <= 10 else {
            return reject(Self.tooMany)
        }
        let mergeOn = (object["performUpsert"] as? [String: Any])?["fieldsToMergeOn"] as? [String]
        let result = transaction { (draft: inout FakeBase) throws -> [String: Any] in
            var created: [String] = []
            var updated: [String] = []
            var records: [[String: Any]] = []
            for input in inputs {
                guard let fields = input["fields"] as? [String: Any] else { throw Self.tooMany }
                var target = input["id"] as? String
                if target == nil, let mergeOn {
                    target = try Self.upsertTarget(fields, mergeOn: mergeOn, table: draft.tables[table])
                    if target == nil {
                        var record = StoredRecord(
                            id: FakeBase.makeID(prefix: "rec"), createdTime: Self.timestamp(), fields: [:])
                        try Self.write(fields, to: &record, table: table, typecast: typecast, in: &draft)
                        draft.tables[table].insert(record)
                        draft.keepInverseLinks(table: table, recordID: record.id, old: nil, new: record.fields)
                        created.append(record.id)
                        records.append(draft.tables[table].json(record, fields: nil))
                        continue
                    }
                    updated.append(target!)
                }
                guard let id = target else { throw Self.tooMany }
                records.append(
                    try Self.change(id, fields, table: table, destructive: destructive, typecast: typecast, in: &draft))
            }
            var answer: [String: Any] = ["records": records]
            if mergeOn != nil {
                answer["createdRecords"] = created
                answer["updatedRecords"] = updated
            }
            return answer
        }
        switch result {
        case .success(let answer): return ok(answer)
        case .failure(let failure): return reject(failure)
        }
    }

    static func change(
        _ id: String, _ fields: [String: Any], table: Int, destructive: Bool, typecast: Bool, in draft: inout FakeBase
    ) throws -> [String: Any] {
        guard var record = draft.tables[table].record(id: id) else {
            throw WriteError(status: 404, type: "MODEL_ID_NOT_FOUND", message: "Record not found")
        }
        let old = record.fields
        if destructive { record.fields = [:] }
        try write(fields, to: &record, table: table, typecast: typecast, in: &draft)
        draft.tables[table].replace(record)
        draft.keepInverseLinks(table: table, recordID: id, old: old, new: record.fields)
        return draft.tables[table].json(record, fields: nil)
    }

    /// The one record whose merge fields equal the input's, nil for none; several is an error.
    private static func upsertTarget(_ fields: [String: Any], mergeOn: [String], table: FakeTable) throws -> String? {
        guard (1...3).contains(mergeOn.count), mergeOn.allSatisfy({ table.field(named: $0) != nil }) else {
            throw WriteError(type: "INVALID_REQUEST_UNKNOWN", message: "Invalid fieldsToMergeOn")
        }
        let wanted = mergeOn.map { "\(fields[$0] ?? "")" }
        let matches = table.records.filter { record in mergeOn.map { "\(record.fields[$0] ?? "")" } == wanted }
        guard matches.count <= 1 else {
            throw WriteError(
                type: "INVALID_VALUE_FOR_COLUMN",
                message: "Cannot update more than one record by upsert: \(matches.count) records match")
        }
        return matches.first?.id
    }

    // MARK: - Delete

    /// `DELETE /v0/{base}/{table}/{id}` or `DELETE /v0/{base}/{table}?records[]=…` (up to ten).
    func delete(_ table: Int, ids: [String], single: Bool) -> HTTPAction {
        guard !ids.isEmpty, ids.count <= 10 else { return reject(Self.tooMany) }
        let result = transaction { (draft: inout FakeBase) throws -> Void in
            for id in ids where draft.tables[table].record(id: id) == nil {
                throw WriteError(status: 404, type: "MODEL_ID_NOT_FOUND", message: "Record not found")
            }
            for id in ids {
                draft.keepInverseLinks(
                    table: table, recordID: id, old: draft.tables[table].record(id: id)?.fields, new: nil)
            }
            draft.tables[table].remove(ids: Set(ids))
        }
        if case .failure(let failure) = result { return reject(failure) }
        let deleted = ids.map { ["id": $0, "deleted": true] as [String: Any] }
        return single ? ok(deleted[0]) : ok(["records": deleted] as [String: Any])
    }

    // MARK: - Cells

    /// Writes `input` into `record` cell by cell, by field type; `null` clears a cell.
    private static func write(
        _ input: [String: Any], to record: inout StoredRecord, table: Int, typecast: Bool, in draft: inout FakeBase
    ) throws {
        for (name, value) in input {
            guard let field = draft.tables[table].field(named: name) else {
                throw WriteError(type: "UNKNOWN_FIELD_NAME", message: "Unknown field name: \"\(name)\"")
            }
            let stored =
                field.type == "multipleAttachments" && !AnyJSON.isNull(value)
                ? try attachmentCell(value, old: record.fields[name])
                : try cell(field, value, table: table, typecast: typecast, in: &draft)
            // What LAST_MODIFIED_TIME({field}) reads. Not recorded: whether writing an equal value counts as a change;
            // the fake counts it, so a client cannot rely on an unchanged time.
            record.modifiedTimes[name] = timestamp()
            record.fields[name] = stored
        }
    }

    /// The stored form of one cell, nil when empty; under typecast it may add a choice or a linked record.
    private static func cell(_ field: FakeField, _ value: Any, table: Int, typecast: Bool, in draft: inout FakeBase)
        throws -> Any?
    {
        let cannot = WriteError(
            type: "INVALID_VALUE_FOR_COLUMN", message: "Field \"\(field.name)\" cannot accept the provided value")
        // Recorded (grouparoo): writing a computed field is refused whatever the value, null included.
        if field.isComputed {
            throw WriteError(
                type: "INVALID_VALUE_FOR_COLUMN",
                message: "Field \"\(field.name)\" cannot accept a value because the field is computed")
        }
        if AnyJSON.isNull(value) { return nil }
        func number(_ value: Any) -> Double? { AnyJSON.number(value) }
        switch field.type {
        case "singleLineText", "multilineText", "richText", "phoneNumber":
            guard let text = value as? String else { throw cannot }
            return text.isEmpty ? nil : text
        case "email", "url":
            // Whether Airtable checks the form of these is not recorded; the stricter reading: it does.
            guard let text = value as? String else { throw cannot }
            if text.isEmpty { return nil }
            let looksRight =
                field.type == "email"
                ? text.split(separator: "@").count == 2 && !text.contains(" ")
                : !text.contains(" ") && text.contains(".")
            guard looksRight else { throw cannot }
            return text
        case "number", "currency", "percent", "duration":
            guard let number = number(value) else { throw cannot }
            return number
        case "rating":
            let maximum = field.options["max"] as? Int ?? 5
            guard let number = number(value), number == number.rounded(), number >= 0, number <= Double(maximum) else {
                throw cannot
            }
            return number == 0 ? nil : Int(number)
        case "checkbox":
            guard isJSONBool(value), let flag = value as? Bool else { throw cannot }
            return flag ? true : nil
        case "date":
            guard let text = value as? String, text.count == 10,
                FakeDates.dayNumber(text).map({ FakeDates.string(dayNumber: $0) }) == text
            else { throw cannot }
            return text
        case "dateTime":
            guard let text = value as? String, let instant = ISOInstant.date(text) else { throw cannot }
            return ISOInstant.text(instant)
        case "singleSelect":
            guard let text = value as? String else { throw cannot }
            if text.isEmpty { return nil }
            try choose(text, field: field, table: table, typecast: typecast, in: &draft)
            return text
        case "multipleSelects":
            guard let list = value as? [String] else { throw cannot }
            for text in list { try choose(text, field: field, table: table, typecast: typecast, in: &draft) }
            return list.isEmpty ? nil : list
        case "singleCollaborator":
            guard let person = collaborator(value, in: draft) else { throw cannot }
            return person
        case "multipleCollaborators":
            guard let list = value as? [Any] else { throw cannot }
            let people = list.map { collaborator($0, in: draft) }
            guard people.allSatisfy({ $0 != nil }) else { throw cannot }
            return people.isEmpty ? nil : people.compactMap { $0 }
        case "multipleRecordLinks":
            guard let list = value as? [String], let linked = field.linkedTableID.flatMap(draft.tableIndex) else {
                throw WriteError(type: "INVALID_VALUE_FOR_COLUMN", message: "Value is not an array of record IDs.")
            }
            let ids = try list.map { try link($0, table: linked, typecast: typecast, in: &draft) }
            return ids.isEmpty ? nil : ids
        case "barcode":
            guard let object = value as? [String: Any], let text = object["text"] as? String else { throw cannot }
            return ["text": text]
        case "multipleAttachments":
            guard let list = value as? [[String: Any]], list.allSatisfy({ $0["url"] is String || $0["id"] is String })
            else { throw cannot }
            return list.isEmpty ? nil : list
        default:
            throw cannot
        }
    }

    /// Whether a decoded JSON value was `true` or `false` (a number is not).
    static func isJSONBool(_ value: Any) -> Bool { AnyJSON.isBool(value) }

    /// Checks a select's choice; typecast adds an unknown one when the user may change the schema, as recorded.
    private static func choose(_ text: String, field: FakeField, table: Int, typecast: Bool, in draft: inout FakeBase)
        throws
    {
        let index = draft.tables[table].fields.firstIndex { $0.id == field.id }!
        guard !draft.tables[table].fields[index].choices.contains(text) else { return }
        guard typecast, draft.allowsSchemaChanges else {
            throw WriteError(
                type: "INVALID_MULTIPLE_CHOICE_OPTIONS",
                message: "Insufficient permissions to create new select option \"\"\(text)\"\"")
        }
        draft.tables[table].fields[index].choices.append(text)
    }

    private static func collaborator(_ value: Any, in base: FakeBase) -> [String: Any]? {
        guard let object = value as? [String: Any] else { return nil }
        if let email = (object["email"] as? String)?.lowercased() { return base.collaborators[email] }
        if let id = object["id"] as? String { return base.collaborators.values.first { $0["id"] as? String == id } }
        return nil
    }

    /// A linked record's id: an id of the linked table, or under typecast a primary-field name, found or created.
    private static func link(_ value: String, table: Int, typecast: Bool, in draft: inout FakeBase) throws -> String {
        if draft.tables[table].record(id: value) != nil { return value }
        guard typecast else {
            // An id of no record: the answer is not recorded; docs/airtable.md "The other tables" names
            // ROW_DOES_NOT_EXIST, taken as a 422.
            if value.hasPrefix("rec") && value.count == 17 {
                throw WriteError(type: "ROW_DOES_NOT_EXIST", message: "Record ID \(value) does not exist")
            }
            throw WriteError(type: "INVALID_VALUE_FOR_COLUMN", message: "Value \"\(value)\" is not a valid record ID.")
        }
        let primary = draft.tables[table].primaryFieldName
        if let found = draft.tables[table].records.first(where: { $0.fields[primary] as? String == value }) {
            return found.id
        }
        // Recorded: typecast creates a record in the linked table for a name it does not know.
        let record = StoredRecord(
            id: FakeBase.makeID(prefix: "rec"), createdTime: timestamp(), fields: [primary: value])
        draft.tables[table].insert(record)
        return record.id
    }

    static func timestamp() -> String {
        ISOInstant.text(FakeAirtable.now)
    }
}
