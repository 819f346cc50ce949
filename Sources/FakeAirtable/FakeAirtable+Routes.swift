import TrackerHTTP
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FakeAirtable {
    static let permissionMessage =
        "Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct."

    /// Routes a request that passed the fault, rate-limit and URL-length stages.
    func route(_ request: HTTPRequest, expireIterator: Bool) -> HTTPAction {
        // Airtable's OAuth is on airtable.com, beside the API: no bearer there.
        if let answer = oauthRoute(request) { return answer }
        guard let user = user(of: request), !request.query.contains("api_key=") else {
            return error(401, "AUTHENTICATION_REQUIRED", "Authentication required")
        }
        var parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.first == "v0" else { return notFoundRoute() }
        parts.removeFirst()
        if parts.first == "meta" { return meta(Array(parts.dropFirst()), user: user) }
        if parts.first == "bases" { return webhooks(request, Array(parts.dropFirst())) }
        // The upload route (content.airtable.com, served here too): the record and field, no table.
        if parts.count == 4, parts[0] == options.baseID, parts[3] == "uploadAttachment" {
            guard request.method == "POST" else { return notFoundRoute() }
            return upload(recordID: parts[1], field: parts[2], request.body)
        }
        // A wrong base or table is 403 with a personal access token, the same answer as a missing scope.
        guard parts.count >= 2, parts[0] == options.baseID, let table = locked({ base.tableIndex(parts[1]) }) else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        let query = Self.queryPairs(request.query)
        if parts.count == 5, parts[3] == "comments", request.method == "DELETE" {
            return deleteComment(parts[4], table: table, recordID: parts[2])
        }
        if parts.count == 4, parts[3] == "comments" {
            return comments(request.method, table: table, recordID: parts[2], query: query, body: request.body)
        }
        switch (request.method, parts.count > 2 ? parts[2] : nil) {
        case ("GET", nil): return list(table, parameters: Self.queryParameters(query), expireIterator: expireIterator)
        case ("POST", "listRecords"?):
            guard let body = AnyJSON.parse(request.body) as? [String: Any] else {
                return invalidRequest()
            }
            return list(table, parameters: Self.bodyParameters(body), expireIterator: expireIterator)
        case ("GET", let id?): return get(id)
        case ("POST", nil): return create(table, request.body)
        case ("PATCH", let id), ("PUT", let id):
            return update(table, id: id, request.body, destructive: request.method == "PUT")
        case ("DELETE", let id):
            return delete(
                table, ids: id.map { [$0] } ?? query.filter { $0.0 == "records[]" }.map(\.1), single: id != nil)
        default: return notFoundRoute()
        }
    }

    func error(_ status: Int, _ type: String, _ message: String?) -> HTTPAction {
        .respond(status: status, headers: [:], body: Self.errorBody(status: status, type: type, message: message))
    }

    func invalidRequest() -> HTTPAction {
        error(422, "INVALID_REQUEST_UNKNOWN", "Invalid request: parameter validation failed. Check your request data.")
    }

    /// Airtable's answer for a route or record that does not exist: the error as a bare string.
    func notFoundRoute() -> HTTPAction {
        .respond(status: 404, headers: [:], body: Data(#"{"error":"NOT_FOUND"}"#.utf8))
    }

    func ok(_ object: Any) -> HTTPAction { .respond(status: 200, headers: [:], body: Self.json(object)) }

    // MARK: - Metadata

    private func meta(_ parts: [String], user: String) -> HTTPAction {
        if parts == ["whoami"] {
            var body: [String: Any] = ["id": user]
            if user == options.user.id, let email = options.user.email { body["email"] = email }
            if let email = options.emails[user] { body["email"] = email }
            return ok(body)
        }
        if parts == ["bases"] {
            guard options.grantsSchemaAccess else {
                return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
            }
            let others = options.otherBases.sorted { $0.key < $1.key }.map { ["id": $0.key, "name": $0.value] }
            let bases = [["id": options.baseID, "name": "Project tracker"]] + others
            return ok(["bases": bases.map { $0.merging(["permissionLevel": "create"]) { first, _ in first } }])
        }
        guard parts.count == 3, parts[0] == "bases", parts[2] == "tables" else { return notFoundRoute() }
        guard options.grantsSchemaAccess, parts[1] == options.baseID else {
            return error(403, "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND", Self.permissionMessage)
        }
        let tables = locked {
            base.tables.map { table -> [String: Any] in
                [
                    "id": table.id, "name": table.name, "primaryFieldId": table.fields[0].id,
                    "fields": table.fields.map(\.json),
                    "views": table.views.map { ["id": $0.id, "name": $0.name, "type": $0.type] },
                ]
            }
        }
        return ok(["tables": tables])
    }

    // MARK: - Reading

    struct ListParameters {
        var pageSize = 100
        var maxRecords: Int?
        var offset: String?
        var formula: String?
        var sort: [(field: String, descending: Bool)] = []
        var fields: [String]?
        var view: String?
    }

    /// The query's key-value pairs, decoded (`+` is a space, as in forms).
    static func queryPairs(_ query: String) -> [(String, String)] {
        query.split(separator: "&").compactMap { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacing("+", with: " ").percentDecoded ?? String($0)
            }
            return kv.count == 2 ? (kv[0], kv[1]) : nil
        }
    }

    static func queryParameters(_ pairs: [(String, String)]) -> ListParameters {
        var parameters = ListParameters()
        var sortFields: [Int: String] = [:]
        var sortDirections: [Int: String] = [:]
        for (key, value) in pairs {
            switch key {
            case "pageSize": parameters.pageSize = Int(value) ?? -1
            case "maxRecords": parameters.maxRecords = Int(value)
            case "offset": parameters.offset = value
            case "filterByFormula": parameters.formula = value
            case "fields[]": parameters.fields = (parameters.fields ?? []) + [value]
            case "view": parameters.view = value
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
        parameters.pageSize = AnyJSON.number(body["pageSize"] as Any).map { Int($0) } ?? 100
        parameters.maxRecords = AnyJSON.number(body["maxRecords"] as Any).map { Int($0) }
        parameters.offset = body["offset"] as? String
        parameters.formula = body["filterByFormula"] as? String
        parameters.fields = body["fields"] as? [String]
        parameters.view = body["view"] as? String
        parameters.sort = (body["sort"] as? [[String: Any]] ?? []).compactMap { rule in
            (rule["field"] as? String).map { ($0, rule["direction"] as? String == "desc") }
        }
        return parameters
    }

    private func list(_ table: Int, parameters: ListParameters, expireIterator: Bool) -> HTTPAction {
        guard (1...100).contains(parameters.pageSize) else { return invalidRequest() }
        return locked { () -> HTTPAction in
            let schema = base.tables[table]
            let named: [String] = (parameters.fields ?? []) + parameters.sort.map { $0.field }
            if let unknown = named.first(where: { schema.field(named: $0) == nil }) {
                // One unknown name in fields[] or sort fails the whole request.
                return error(422, "UNKNOWN_FIELD_NAME", "Unknown field name: \"\(unknown)\"")
            }
            // Observed from the real service through airtable.js: 422 VIEW_NAME_NOT_FOUND, "View Grid view not found".
            if let view = parameters.view, schema.view(view) == nil {
                return error(422, "VIEW_NAME_NOT_FOUND", "View \(view) not found")
            }
            var ids: [String]
            var position: Int
            if let offset = parameters.offset {
                guard let cursor = base.cursors[offset] else {
                    return error(422, "INVALID_OFFSET_VALUE", "The value of offset \(offset) is invalid")
                }
                let expired = options.iteratorLifetime.map { Date().timeIntervalSince(cursor.created) > $0 } ?? false
                if expired || expireIterator {
                    base.cursors[offset] = nil
                    return .respond(
                        status: 422, headers: [:],
                        body: Data(#"{"error":{"type":"LIST_RECORDS_ITERATOR_NOT_AVAILABLE"}}"#.utf8))
                }
                (ids, position) = (cursor.ids, cursor.position)
            } else {
                do {
                    ids = try matchingIDs(schema, parameters)
                } catch {
                    return self.error(
                        422, "INVALID_FILTER_BY_FORMULA", "The formula for filtering records is invalid: \(error)")
                }
                position = 0
            }
            let end = min(ids.count, position + parameters.pageSize)
            let only = parameters.fields.map(Set.init)
            let today = FakeDates.today()
            let page = ids[position..<end].compactMap { id in
                schema.record(id: id).map { schema.json($0, fields: only, today: today) }
            }
            var body: [String: Any] = ["records": page]
            if end < ids.count {
                let offset = "itr" + FakeBase.makeID(prefix: "").prefix(14) + "/" + ids[end]
                base.cursors[offset] = (ids, end, Date())
                body["offset"] = offset
            }
            return ok(body)
        }
    }

    /// The ids of the records that match, in order, capped by maxRecords; called with the lock held. A view's filter
    /// applies first and the formula narrows it (AND); the view's order holds unless the request sorts.
    private func matchingIDs(_ table: FakeTable, _ parameters: ListParameters) throws -> [String] {
        var matches = table.records
        let known = Set(table.fields.map(\.name))
        let today = FakeDates.today()
        let view = parameters.view.flatMap(table.view)
        for formula in [view?.filter, parameters.formula].compactMap({ $0 }) where !formula.isEmpty {
            // Records by id (`OR(RECORD_ID() = 'rec…', …)`, what clients send to read a page of ids) picked from the
            // index: the same answer as evaluating the formula on every record, without a table scan per request.
            if let ids = Self.recordIDs(in: formula) {
                matches =
                    matches.count == table.records.count
                    ? table.records(ids: ids) : matches.filter { ids.contains($0.id) }
                continue
            }
            let evaluator = try FormulaEvaluator(formula, knownFields: known)
            // Looked up once, not copied with the whole table into a closure for every record: 50,000 records cost
            // the fake more than the client otherwise.
            let byName = Dictionary(table.fields.map { ($0.name, $0) }) { first, _ in first }
            let computes = byName.values.contains { $0.formula != nil }
            // A link field in a formula is the linked records' primary names, not their ids (docs/airtable.md "The
            // other tables").
            let links = linkNames(table, formula)
            // Made once: a closure made for each record that captured the table copied it (every one of its
            // references retained) 50,000 times a request.
            let stored: (String, StoredRecord) -> FormulaValue
            if computes {
                let computing = table
                stored = { name, record in computing.value(name, of: record, today: today) }
            } else {
                stored = { name, record in record.formulaValue(name, type: byName[name]?.type) }
            }
            let value: (String, StoredRecord) -> FormulaValue = { name, record in
                if let names = links[name] {
                    let ids = record.fields[name] as? [String] ?? []
                    return ids.isEmpty ? .blank : .string(ids.map { names[$0] ?? "" }.joined(separator: ", "))
                }
                return stored(name, record)
            }
            matches = try matches.filter { record in
                try evaluator.evaluate({ value($0, record) }, record: record, today: today).isTruthy
            }
        }
        let sort = parameters.sort.isEmpty ? view?.sort ?? [] : parameters.sort
        if !sort.isEmpty {
            // Each record's values read once and the records moved once: sorting 50,000 records by reading the cells
            // at every comparison took the fake longer than tracker took to read all 500 pages.
            let keys = matches.map { record in sort.map { rule in table.value(rule.field, of: record, today: today) } }
            let texts = keys.map { $0.map(\.text) }
            let order = matches.indices.sorted { a, b in
                for (index, rule) in sort.enumerated() {
                    // Empty cells sort first ascending, as in Airtable; numbers as numbers.
                    let ordered: Bool?
                    switch (keys[a][index], keys[b][index]) {
                    case (.number(let p), .number(let q)): ordered = p == q ? nil : p < q
                    default:
                        let (x, y) = (texts[a][index], texts[b][index])
                        ordered = x == y ? nil : x < y
                    }
                    if let ordered { return rule.descending ? !ordered : ordered }
                }
                return false
            }
            matches = order.map { matches[$0] }
        }
        let ids = matches.map(\.id)
        return parameters.maxRecords.map { Array(ids.prefix($0)) } ?? ids
    }

    /// The ids of a formula that is only `RECORD_ID() = 'id'` terms joined by OR; nil for any other formula.
    static func recordIDs(in formula: String) -> Set<String>? {
        var body = Substring(formula)
        if body.hasPrefix("OR("), body.hasSuffix(")") { body = body.dropFirst(3).dropLast() }
        var ids = Set<String>()
        for term in body.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = term.drop { $0 == " " }
            let prefix = "RECORD_ID() = '"
            guard trimmed.hasPrefix(prefix), trimmed.hasSuffix("'") else { return nil }
            let id = trimmed.dropFirst(prefix.count).dropLast()
            guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
            ids.insert(String(id))
        }
        return ids.isEmpty ? nil : ids
    }

    /// For each link field `formula` names, the linked records' primary names by id; called with the lock held.
    private func linkNames(_ table: FakeTable, _ formula: String) -> [String: [String: String]] {
        var names: [String: [String: String]] = [:]
        for field in table.fields where field.type == "multipleRecordLinks" && formula.contains("{\(field.name)}") {
            guard let linked = field.linkedTableID.flatMap(base.tableIndex) else { continue }
            let other = base.tables[linked]
            var byID: [String: String] = [:]
            for record in other.records { byID[record.id] = "\(record.fields[other.primaryFieldName] ?? "")" }
            names[field.name] = byID
        }
        return names
    }

    /// One record by id: like Airtable, the table in the URL is ignored and any table of the base is searched.
    private func get(_ id: String) -> HTTPAction {
        guard let (record, table) = locked({ base.anyRecord(id: id) }) else { return notFoundRoute() }
        return ok(table.json(record, fields: nil))
    }
}
