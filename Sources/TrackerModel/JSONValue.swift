/// A JSON document whose objects keep their key order, so output and request bodies are byte-for-byte predictable.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The compact JSON text of this value.
    public func serialized() -> String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.text
    }

    /// Appends the compact JSON text of this value to `text`.
    func write(to text: inout String) { text += serialized() }

    /// Whether this is JSON's `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }
}

extension JSONValue {
    /// `.string(value)`, or `.null` when there is no value.
    public static func string(or value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// The string this value holds, if it is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }

    /// The member called `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let values) = self { values } else { nil } }
}

extension JSONValue {
    /// The number this value holds, if it is one.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }

    /// The whole number this value holds, if it is one a program can count with: `Int(exactly:)` within ±2^53 (what
    /// a double holds exactly). A number from outside (`1e300`, `2.5`, NaN) is nil, never a trap.
    public var intValue: Int? {
        guard case .number(let value) = self, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int(exactly: value)
    }

    /// The flag this value holds, if it is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// The members, if this is an object.
    public var objectMembers: [(String, JSONValue)]? { if case .object(let members) = self { members } else { nil } }
}
