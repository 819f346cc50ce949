/// Compact JSON text built directly as UTF-8 bytes: a listing of 50,000 projects is written without building a
/// `JSONValue` or a `String` per project, and strings are copied a run at a time between the characters that need an
/// escape.
public struct JSONWriter: JSONSink {
    /// The text so far.
    public private(set) var bytes: [UInt8] = []
    /// For each container opened by `beginObject` or `beginArray`, whether it holds an element yet (the next one is
    /// preceded by a comma).
    private var open: [Bool] = []
    /// Right after a member's name: its value takes no comma.
    private var afterKey = false

    /// An empty text with room for `capacity` bytes.
    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The text so far as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends punctuation or a literal such as `null`.
    public mutating func raw(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends text that is JSON already (a line written by this writer, a serialized value), as it is.
    public mutating func raw(json text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends bytes that are JSON already (a line kept from an earlier file), as they are.
    public mutating func raw(bytes json: ArraySlice<UInt8>) { bytes.append(contentsOf: json) }

    /// The comma before a value, inside a container this writer opened.
    private mutating func beforeValue() {
        if afterKey { return afterKey = false }
        guard let holds = open.last else { return }
        if holds { bytes.append(UInt8(ascii: ",")) } else { open[open.count - 1] = true }
    }

    public mutating func beginObject() { opening(UInt8(ascii: "{")) }
    public mutating func endObject() { closing(UInt8(ascii: "}")) }
    public mutating func beginArray() { opening(UInt8(ascii: "[")) }
    public mutating func endArray() { closing(UInt8(ascii: "]")) }

    /// A container opened: its first element takes no comma.
    private mutating func opening(_ bracket: UInt8) {
        beforeValue()
        open.append(false)
        bytes.append(bracket)
    }

    private mutating func closing(_ bracket: UInt8) {
        open.removeLast()
        bytes.append(bracket)
    }

    /// Appends `"key":`.
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// Appends `value` as a string literal: quotes, backslashes and control characters escaped, the rest as UTF-8.
    public mutating func string(_ value: String) {
        beforeValue()
        var value = value
        value.withUTF8 { escaped($0) }
    }

    /// Appends a number: whole numbers without a fraction, others as Swift prints a `Double`.
    public mutating func number(_ value: Double) {
        beforeValue()
        let text = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func bool(_ flag: Bool) {
        beforeValue()
        flag ? raw("true") : raw("false")
    }

    public mutating func null() {
        beforeValue()
        raw("null")
    }

    /// Appends any JSON value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let values):
            beginArray()
            for element in values { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members {
                key(name)
                self.value(member)
            }
            endObject()
        }
    }

    /// In UTF-8 every byte of a multi-byte character is 0x80 or above, so a byte scan finds every character that
    /// needs escaping.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            default:
                let hex = Array("0123456789abcdef".utf8)
                raw("\\u00")
                bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        bytes.append(UInt8(ascii: "\""))
    }
}
