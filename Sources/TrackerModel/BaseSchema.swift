/// A base's tables, their fields and views, as the schema API describes them.
public struct BaseSchema: Equatable, Sendable {
    public var tables: [Table]

    public init(tables: [Table]) { self.tables = tables }

    /// The table with this name or id.
    public func table(_ nameOrID: String) -> Table? { tables.first { $0.name == nameOrID || $0.id == nameOrID } }

    public struct Table: Equatable, Sendable {
        public var id: String
        public var name: String
        var primaryFieldID: String?
        /// In the table's order, which is the order `show` lists them in.
        public var fields: [Field]
        public var views: [View]

        public init(id: String, name: String, primaryFieldID: String?, fields: [Field], views: [View]) {
            self.id = id
            self.name = name
            self.primaryFieldID = primaryFieldID
            self.fields = fields
            self.views = views
        }

        /// The field called exactly `name`.
        public func field(named name: String) -> Field? { fields.first { $0.name == name } }

        /// The field called `name`, else the one field so called ignoring case.
        public func field(matching name: String) -> Field? {
            if let exact = field(named: name) { return exact }
            let folded = fields.filter { $0.name.lowercased() == name.lowercased() }
            return folded.count == 1 ? folded[0] : nil
        }

        /// The field that names the table's records.
        public var primaryField: Field? { fields.first { $0.id == primaryFieldID } ?? fields.first }

        /// The view called `name`, else the one view so called ignoring case.
        public func view(matching name: String) -> View? {
            if let exact = views.first(where: { $0.name == name }) { return exact }
            let folded = views.filter { $0.name.lowercased() == name.lowercased() }
            return folded.count == 1 ? folded[0] : nil
        }
    }

    public struct View: Equatable, Sendable {
        public var id: String
        public var name: String
        public var type: String

        public init(id: String, name: String, type: String) {
            self.id = id
            self.name = name
            self.type = type
        }
    }

    public struct Field: Equatable, Sendable {
        public var id: String
        public var name: String
        /// The schema API's type: `singleLineText`, `currency`, `formula`…
        public var type: String
        /// The type's options as Airtable sent them (choices, precision, symbol, linked table…).
        var options: JSONValue?

        public init(id: String, name: String, type: String, options: JSONValue? = nil) {
            self.id = id
            self.name = name
            self.type = type
            self.options = options
        }

        /// Fields whose value Airtable computes; writing one is refused.
        static let computedTypes: Set<String> = [
            "formula", "rollup", "multipleLookupValues", "count", "autoNumber", "createdTime", "lastModifiedTime",
            "createdBy", "lastModifiedBy", "button", "externalSyncSource", "aiText",
        ]

        /// Whether Airtable computes the value.
        public var isComputed: Bool { Self.computedTypes.contains(type) }

        /// The choices of a single or multiple select, in order.
        public var choices: [String] {
            options?["choices"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        }

        /// The table a link field points at.
        public var linkedTableID: String? { options?["linkedTableId"]?.stringValue }

        /// Decimal places of a number, currency, percent or duration-like field.
        public var precision: Int? { options?["precision"]?.intValue }

        /// A currency field's symbol.
        public var symbol: String? { options?["symbol"]?.stringValue }

        /// A rating's highest value.
        public var maximum: Int? { options?["max"]?.intValue }

        /// A duration's format, e.g. `h:mm` or `h:mm:ss`.
        public var durationFormat: String? { options?["durationFormat"]?.stringValue }

        /// For a computed field, the field its values look like (a formula's result type and options).
        public var result: Field? {
            guard let result = options?["result"], let type = result["type"]?.stringValue else { return nil }
            return Field(id: id, name: name, type: type, options: result["options"])
        }
    }
}
