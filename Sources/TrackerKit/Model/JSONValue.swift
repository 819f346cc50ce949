/// A JSON document whose objects keep their key order, so output and request bodies are byte-for-byte predictable.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    /// The compact JSON text of this value.
    public func serialized() -> String {
        var text = ""
        write(to: &text)
        return text
    }

    /// Appends the compact JSON text of this value to `text`.
    public func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { text += String(Int64(value)) } else { text += "\(value)" }
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(key, to: &text)
                text += ":"
                value.write(to: &text)
            }
            text += "}"
        }
    }

    /// Appends `value` as a JSON string literal: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func writeString(_ value: String, to text: inout String) {
        text += "\""
        var start = value.unicodeScalars.startIndex
        var index = start
        let scalars = value.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\"" || scalar == "\\" || scalar.value < 0x20 {
                text.unicodeScalars.append(contentsOf: scalars[start..<index])
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                default:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                start = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        text.unicodeScalars.append(contentsOf: scalars[start..<index])
        text += "\""
    }
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

    /// The flag this value holds, if it is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// The members, if this is an object.
    public var objectMembers: [(String, JSONValue)]? { if case .object(let members) = self { members } else { nil } }
}
