import TrackerNetwork
import TrackerModel
extension BaseSchema {
    /// The schema in the body of `GET /v0/meta/bases/{base}/tables`: `{"tables": [{id, name, primaryFieldId,
    /// fields: [{id, name, type, options}], views: [{id, name, type}]}]}`.
    public init(airtable body: JSONValue) throws(AppError) {
        guard let tables = body["tables"]?.arrayValue else {
            throw AppError.badResponse("the schema has no tables array")
        }
        self.init(
            tables: try tables.enumerated().map { (index, table) throws(AppError) -> Table in
                guard let id = table["id"]?.stringValue, let name = table["name"]?.stringValue,
                    let fields = table["fields"]?.arrayValue
                else { throw AppError.badResponse("tables[\(index)] of the schema lacks an id, name or fields") }
                return Table(
                    id: id, name: name, primaryFieldID: table["primaryFieldId"]?.stringValue,
                    fields: fields.compactMap { field in
                        guard let name = field["name"]?.stringValue else { return nil }
                        return Field(
                            id: field["id"]?.stringValue ?? "", name: name, type: field["type"]?.stringValue ?? "",
                            options: field["options"])
                    },
                    views: (table["views"]?.arrayValue ?? []).compactMap { view in
                        guard let name = view["name"]?.stringValue else { return nil }
                        return View(
                            id: view["id"]?.stringValue ?? "", name: name, type: view["type"]?.stringValue ?? "")
                    })
            })
    }
}
