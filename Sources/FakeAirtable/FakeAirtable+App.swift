/// Changes made in Airtable's own app, as a person makes them: not Web API requests, so neither logged nor counted
/// against the base's 5 a second (the limit is the Web API's), while every hook records them (source `client`) and
/// pings as for any change.
extension FakeAirtable {
    /// Sets `fields` (by name, as the API takes them) on the project named `name`, as an edit in the grid does; false
    /// when no project has that name or a value does not fit its field.
    @discardableResult
    public func editInApp(projectNamed name: String, setting fields: [String: Any]) -> Bool {
        let result = transaction(source: "client") { (draft: inout FakeBase) throws -> [String: Any] in
            let table = draft.tables[0]
            guard let id = table.records.first(where: { "\($0.fields[table.primaryFieldName] ?? "")" == name })?.id
            else { throw WriteError(status: 404, type: "MODEL_ID_NOT_FOUND", message: "Record not found") }
            return try Self.change(id, fields, table: 0, destructive: false, typecast: false, in: &draft)
        }
        if case .success = result { return true }
        return false
    }
}
