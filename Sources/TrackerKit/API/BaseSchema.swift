/// A base's tables and fields, from `GET /v0/meta/bases/{base}/tables`.
public struct BaseSchema: Decodable, Equatable, Sendable {
    public var tables: [Table]

    public struct Table: Decodable, Equatable, Sendable {
        public var id: String
        public var name: String
        public var primaryFieldId: String?
        public var fields: [Field]

        /// The field called `name`, if the table has one.
        public func field(named name: String) -> Field? { fields.first { $0.name == name } }

        /// The field that names the table's records.
        public var primaryField: Field? { fields.first { $0.id == primaryFieldId } ?? fields.first }
    }

    public struct Field: Decodable, Equatable, Sendable {
        public var id: String?
        public var name: String
        public var type: String
        /// The choices of a select field, in order.
        public var choices: [String]
        /// The table a link field points at.
        public var linkedTableID: String?

        private enum Keys: String, CodingKey { case id, name, type, options }
        private enum OptionKeys: String, CodingKey { case choices, linkedTableId }
        private struct Choice: Decodable { var name: String }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            type = try container.decodeIfPresent(String.self, forKey: .type) ?? ""
            let options = try? container.nestedContainer(keyedBy: OptionKeys.self, forKey: .options)
            choices = (try? options?.decodeIfPresent([Choice].self, forKey: .choices))??.map(\.name) ?? []
            linkedTableID = (try? options?.decodeIfPresent(String.self, forKey: .linkedTableId)) ?? nil
        }
    }

    /// The table with this name or id.
    public func table(_ nameOrID: String) -> Table? { tables.first { $0.name == nameOrID || $0.id == nameOrID } }
}
