import Foundation

extension FakeAirtable {
    /// `POST /v0/{base}/{table}`: the single-record form or up to ten `records`, checked field by field.
    func create(_ body: Data) -> HTTPAction {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return reject(
                "INVALID_REQUEST_UNKNOWN", "Invalid request: parameter validation failed. Check your request data.")
        }
        let typecast = object["typecast"] as? Bool ?? false
        let batch = object["records"] as? [[String: Any]]
        let inputs = batch?.map { $0["fields"] as? [String: Any] } ?? [object["fields"] as? [String: Any]]
        guard !inputs.isEmpty, inputs.count <= 10, inputs.allSatisfy({ $0 != nil }) else {
            return reject(
                "INVALID_RECORDS",
                "You must provide an array of up to 10 record objects, each with a 'fields' object for cell values.")
        }
        switch locked({ insert(inputs.compactMap { $0 }, typecast: typecast) }) {
        case .success(let created):
            let json: [[String: Any]] = created.map { $0.json(fields: nil) }
            let isBatch = batch != nil
            let answer: Any = isBatch ? ["records": json] as [String: Any] : json[0]
            return .respond(status: 200, headers: [:], body: Self.json(answer))
        case .failure(let failure):
            return reject(failure.type, failure.message)
        }
    }

    /// Checks every cell of every input and stores them all, or none; called with the lock held.
    private func insert(_ inputs: [[String: Any]], typecast: Bool) -> Result<[StoredRecord], CellError> {
        var created: [StoredRecord] = []
        for input in inputs {
            var fields: [String: Any] = [:]
            for (name, value) in input {
                switch cell(name, value, typecast: typecast) {
                case .success(let stored): if let stored { fields[name] = stored }
                case .failure(let failure): return .failure(failure)
                }
            }
            created.append(
                StoredRecord(id: RecordStore.makeID(prefix: "rec"), createdTime: Self.timestamp(), fields: fields))
        }
        created.forEach { store.insert($0) }
        return .success(created)
    }

    private struct CellError: Error {
        var type: String
        var message: String
    }

    private func reject(_ type: String, _ message: String) -> HTTPAction {
        .respond(status: 422, headers: [:], body: Self.errorBody(type: type, message: message))
    }

    /// The stored form of one written cell, nil for an empty one; called with the lock held.
    private func cell(_ name: String, _ value: Any, typecast: Bool) -> Result<Any?, CellError> {
        let cannot = CellError(
            type: "INVALID_VALUE_FOR_COLUMN", message: "Field \"\(name)\" cannot accept the provided value")
        if value is NSNull { return .success(nil) }
        switch name {
        case "Name", "Notes":
            guard let text = value as? String else { return .failure(cannot) }
            return .success(text.isEmpty ? nil : text)
        case "Complete":
            guard let flag = value as? Bool else { return .failure(cannot) }
            return .success(flag ? true : nil)
        case "Kickoff date", "Due date":
            guard let text = value as? String, text.count == 10,
                FakeDates.dayNumber(text).map({ FakeDates.string(dayNumber: $0) }) == text
            else { return .failure(cannot) }
            return .success(text)
        case "Category":
            guard let text = value as? String else { return .failure(cannot) }
            if !store.categories.contains(text) {
                guard typecast else {
                    return .failure(
                        CellError(
                            type: "INVALID_MULTIPLE_CHOICE_OPTIONS",
                            message: "Insufficient permissions to create new select option \"\(text)\""))
                }
                store.categories.insert(text)
            }
            return .success(text)
        case "Project lead":
            guard let person = collaborator(value) else { return .failure(cannot) }
            return .success(person)
        case "Project team":
            guard let list = value as? [Any] else { return .failure(cannot) }
            let people = list.map(collaborator)
            guard people.allSatisfy({ $0 != nil }) else { return .failure(cannot) }
            return .success(people.isEmpty ? nil : people.compactMap { $0 })
        case "Client":
            guard let list = value as? [String] else { return .failure(cannot) }
            let ids = list.map {
                $0.hasPrefix("rec") && $0.count == 17 ? $0 : (typecast ? Self.linkID(forName: $0) : "")
            }
            guard !ids.contains("") else { return .failure(cannot) }
            return .success(ids.isEmpty ? nil : ids)
        default:
            return .failure(CellError(type: "UNKNOWN_FIELD_NAME", message: "Unknown field name: \"\(name)\""))
        }
    }

    private func collaborator(_ value: Any) -> [String: Any]? {
        guard let object = value as? [String: Any] else { return nil }
        if let email = (object["email"] as? String)?.lowercased() { return store.collaborators[email] }
        if let id = object["id"] as? String { return store.collaborators.values.first { $0["id"] as? String == id } }
        return nil
    }

    /// A stable made-up record id for a linked record named `name` (typecast creates or finds it).
    static func linkID(forName name: String) -> String {
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return "rec" + String((0..<14).map { index in alphabet[Int((hash >> UInt64(index * 4)) % 62)] })
    }

    static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
