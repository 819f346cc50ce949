import Foundation

extension FakeAirtable {
    /// Routes a request that passed the fault and rate-limit stages.
    func route(_ request: HTTPRequest, expireIterator: Bool) -> HTTPAction {
        guard request.header("authorization") == "Bearer \(options.token)",
            !request.query.contains("api_key=")
        else {
            return error(401, "AUTHENTICATION_REQUIRED", "Authentication required")
        }
        var parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.first == "v0" else { return notFoundRoute() }
        parts.removeFirst()
        if parts.first == "meta" { return meta(Array(parts.dropFirst()), request) }
        guard parts.count >= 2, parts[0] == options.baseID, parts[1] == options.table || parts[1] == options.tableID
        else {
            return error(
                403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND",
                "Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct."
            )
        }
        switch (request.method, parts.count > 2 ? parts[2] : nil) {
        case ("GET", nil): return list(parameters: Self.queryParameters(request.query), expireIterator: expireIterator)
        case ("POST", "listRecords"?):
            guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
                return error(
                    422, "INVALID_REQUEST_UNKNOWN",
                    "Invalid request: parameter validation failed. Check your request data.")
            }
            return list(parameters: Self.bodyParameters(body), expireIterator: expireIterator)
        case ("GET", let id?): return get(id)
        case ("POST", nil): return create(request.body)
        default: return notFoundRoute()
        }
    }

    private func error(_ status: Int, _ type: String, _ message: String?) -> HTTPAction {
        .respond(status: status, headers: [:], body: Self.errorBody(type: type, message: message))
    }

    private func notFoundRoute() -> HTTPAction {
        .respond(status: 404, headers: [:], body: Data(#"{"error":"NOT_FOUND"}"#.utf8))
    }

    private func ok(_ object: Any) -> HTTPAction { .respond(status: 200, headers: [:], body: Self.json(object)) }

    // MARK: - Metadata

    private func meta(_ parts: [String], _ request: HTTPRequest) -> HTTPAction {
        if parts == ["whoami"] { return ok(["id": "usrFAKEuser000001"]) }
        guard parts.count == 3, parts[0] == "bases", parts[2] == "tables" else { return notFoundRoute() }
        guard options.grantsSchemaAccess, parts[1] == options.baseID else {
            return error(
                403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND",
                "Invalid permissions, or the requested model was not found.")
        }
        let types: [(String, String)] = [
            ("Name", "singleLineText"), ("Category", "singleSelect"), ("Complete", "checkbox"),
            ("Kickoff date", "date"), ("Due date", "date"), ("Project lead", "singleCollaborator"),
            ("Project team", "multipleCollaborators"), ("Client", "multipleRecordLinks"), ("Notes", "multilineText"),
        ]
        let fields = types.enumerated().map { index, field in
            ["id": "fldFAKEfield\(String(format: "%05d", index))", "name": field.0, "type": field.1]
        }
        return ok([
            "tables": [
                [
                    "id": options.tableID, "name": options.table, "primaryFieldId": "fldFAKEfield00000",
                    "fields": fields, "views": [],
                ]
            ]
        ])
    }

    // MARK: - Reading

    struct ListParameters {
        var pageSize = 100
        var maxRecords: Int?
        var offset: String?
        var formula: String?
        var sort: [(field: String, descending: Bool)] = []
        var fields: [String]?
        var isValid = true
    }

    static func queryParameters(_ query: String) -> ListParameters {
        var parameters = ListParameters()
        var sortFields: [Int: String] = [:]
        var sortDirections: [Int: String] = [:]
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            guard kv.count == 2 else { continue }
            let (key, value) = (kv[0], kv[1])
            switch key {
            case "pageSize": parameters.pageSize = Int(value) ?? -1
            case "maxRecords": parameters.maxRecords = Int(value)
            case "offset": parameters.offset = value
            case "filterByFormula": parameters.formula = value
            case "fields[]": parameters.fields = (parameters.fields ?? []) + [value]
            default:
                if key.hasPrefix("sort["), let close = key.firstIndex(of: "]"),
                    let number = Int(key[key.index(key.startIndex, offsetBy: 5)..<close])
                {
                    if key.hasSuffix("[field]") { sortFields[number] = value } else { sortDirections[number] = value }
                }
            }
        }
        parameters.sort = sortFields.keys.sorted().map { (sortFields[$0]!, sortDirections[$0] == "desc") }
        return parameters
    }

    static func bodyParameters(_ body: [String: Any]) -> ListParameters {
        var parameters = ListParameters()
        parameters.pageSize = (body["pageSize"] as? NSNumber)?.intValue ?? 100
        parameters.maxRecords = (body["maxRecords"] as? NSNumber)?.intValue
        parameters.offset = body["offset"] as? String
        parameters.formula = body["filterByFormula"] as? String
        parameters.fields = body["fields"] as? [String]
        parameters.sort = (body["sort"] as? [[String: Any]] ?? []).compactMap { rule in
            (rule["field"] as? String).map { ($0, rule["direction"] as? String == "desc") }
        }
        return parameters
    }

    private func list(parameters: ListParameters, expireIterator: Bool) -> HTTPAction {
        guard (1...100).contains(parameters.pageSize) else {
            return error(
                422, "INVALID_REQUEST_UNKNOWN", "Invalid request: parameter validation failed. Check your request data."
            )
        }
        let named: [String] = (parameters.fields ?? []) + parameters.sort.map { $0.field }
        if let unknown = named.first(where: { !RecordStore.fieldNames.contains($0) }) {
            return error(422, "UNKNOWN_FIELD_NAME", "Unknown field name: \"\(unknown)\"")
        }
        return locked { () -> HTTPAction in
            var ids: [String]
            var position: Int
            if let offset = parameters.offset {
                guard let cursor = store.cursors[offset] else {
                    return error(422, "INVALID_OFFSET_VALUE", "The value of offset \(offset) is invalid")
                }
                let expired = options.iteratorLifetime.map { Date().timeIntervalSince(cursor.created) > $0 } ?? false
                if expired || expireIterator {
                    store.cursors[offset] = nil
                    return .respond(
                        status: 422, headers: [:],
                        body: Data(#"{"error":{"type":"LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}}"#.utf8))
                }
                (ids, position) = (cursor.ids, cursor.position)
            } else {
                do {
                    ids = try matchingIDs(parameters)
                } catch {
                    return self.error(
                        422, "INVALID_FILTER_BY_FORMULA", "The formula for filtering records is invalid: \(error)")
                }
                position = 0
            }
            let end = min(ids.count, position + parameters.pageSize)
            let only = parameters.fields.map(Set.init)
            let page = ids[position..<end].compactMap { store.record(id: $0)?.json(fields: only) }
            var body: [String: Any] = ["records": page]
            if end < ids.count {
                let offset = "itr" + RecordStore.makeID(prefix: "").prefix(14) + "/" + ids[end]
                store.cursors[offset] = (ids, end, Date())
                body["offset"] = offset
            }
            return ok(body)
        }
    }

    /// The ids of the records that match, in order, capped by maxRecords; called with the lock held.
    private func matchingIDs(_ parameters: ListParameters) throws -> [String] {
        var matches = store.records
        if let formula = parameters.formula, !formula.isEmpty {
            let evaluator = try FormulaEvaluator(formula, knownFields: RecordStore.fieldNames)
            let today = FakeDates.today()
            matches = try matches.filter { record in try evaluator.evaluate(record.formulaValue, today: today).isTruthy
            }
        }
        if !parameters.sort.isEmpty {
            matches.sort { a, b in
                for rule in parameters.sort {
                    let x = a.formulaValue(rule.field).text, y = b.formulaValue(rule.field).text
                    if x != y {
                        // Empty cells sort first ascending, as in Airtable.
                        return rule.descending ? x > y : x < y
                    }
                }
                return false
            }
        }
        let ids = matches.map(\.id)
        return parameters.maxRecords.map { Array(ids.prefix($0)) } ?? ids
    }

    private func get(_ id: String) -> HTTPAction {
        guard let record = locked({ store.record(id: id) }) else {
            return error(404, "MODEL_ID_NOT_FOUND", "Record not found")
        }
        return ok(record.json(fields: nil))
    }
}
