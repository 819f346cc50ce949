#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads JSON text into `JSONValue`, keeping each object's members in the order they were written, so a record's
/// fields come out as Airtable sent them. It works on the bytes directly: a listing of 50,000 records is parsed without
/// Foundation's decoders.
public enum JSONParser {
    /// Why a text is not JSON, with the byte offset where reading stopped.
    public struct Failure: Error, Equatable {
        public var message: String
        var offset: Int
    }

    /// Nesting deeper than this is refused rather than risking the stack on a hostile answer.
    static let maximumDepth = 256

    /// The JSON value `data` holds; white space may surround it, nothing else may follow it.
    public static func parse(_ data: Data) throws(Failure) -> JSONValue {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(Failure) -> JSONValue in try parse(buffer: raw.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    /// The JSON value `text` holds.
    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(text[...])
    }

    /// The JSON value `text` holds, read where its bytes lie (a copy's 150,000 stored records are parsed without
    /// copying each one's text first).
    public static func parse(_ text: Substring) throws(Failure) -> JSONValue {
        let result = text.utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(Failure) -> JSONValue in try parse(buffer: bytes) }
        }
        return try (result ?? Result { () throws(Failure) -> JSONValue in try parse(Data(text.utf8)) }).get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: buffer)
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == buffer.count else { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        func failure(_ message: String) -> Failure { Failure(message: message, offset: index) }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        public mutating func value(depth: Int) throws(Failure) -> JSONValue {
            skipSpace()
            guard index < bytes.count else { throw failure("the text ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try word("true", .bool(true))
            case UInt8(ascii: "f"): return try word("false", .bool(false))
            case UInt8(ascii: "n"): return try word("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw failure("unexpected character")
            }
        }

        private mutating func word(_ text: String, _ value: JSONValue) throws(Failure) -> JSONValue {
            for byte in text.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw failure("unexpected character") }
                index += 1
            }
            return value
        }

        private mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw failure("nested too deeply") }
            index += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure("an object key must be a string")
                }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                index += 1
                members.append((key, try value(depth: depth)))
                skipSpace()
                guard index < bytes.count else { throw failure("unexpected end of text in an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw failure("expected ',' or '}'")
                }
            }
        }

        private mutating func array(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw failure("nested too deeply") }
            index += 1
            var elements: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth))
                skipSpace()
                guard index < bytes.count else { throw failure("unexpected end of text in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw failure("expected ',' or ']'")
                }
            }
        }

        /// A string literal; invalid UTF-8 inside it becomes U+FFFD rather than an error.
        mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            // The common case, no escapes: one scan and one copy.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw failure("a control character inside a string") }
                index += 1
            }
            var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: scratch, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
                    case UInt8(ascii: "b"): scratch.append(0x08)
                    case UInt8(ascii: "f"): scratch.append(0x0C)
                    case UInt8(ascii: "n"): scratch.append(0x0A)
                    case UInt8(ascii: "r"): scratch.append(0x0D)
                    case UInt8(ascii: "t"): scratch.append(0x09)
                    case UInt8(ascii: "u"): scratch.append(contentsOf: try unicodeEscape())
                    default: throw failure("an unknown escape in a string")
                    }
                default:
                    if byte < 0x20 { throw failure("a control character inside a string") }
                    scratch.append(byte)
                    index += 1
                }
            }
            throw failure("a string is not closed")
        }

        /// The UTF-8 bytes of `\uXXXX` (the `\u` already read), joining a surrogate pair; a lone surrogate is U+FFFD.
        private mutating func unicodeEscape() throws(Failure) -> [UInt8] {
            var value = try hex4()
            if (0xD800...0xDBFF).contains(value), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                let saved = index
                index += 2
                let low = try hex4()
                if (0xDC00...0xDFFF).contains(low) {
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    index = saved
                }
            }
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            return Array(String(Character(scalar)).utf8)
        }

        private mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("a \\u escape is cut short") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw failure("a \\u escape needs four hex digits")
                }
                value = value * 16 + digit
                index += 1
            }
            return value
        }

        /// A number in JSON's grammar; whole numbers of up to 15 digits are converted without text.
        private mutating func number() throws(Failure) -> Double {
            let start = index
            var isNegative = false
            if bytes[index] == UInt8(ascii: "-") {
                isNegative = true
                index += 1
            }
            var whole: Int64 = 0
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                if digits < 18 { whole = whole * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw failure("a number needs digits") }
            var isWhole = digits <= 15
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isWhole = false
                index += 1
                let before = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > before else { throw failure("a number needs digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isWhole = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                let before = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > before else { throw failure("a number needs digits in its exponent") }
            }
            if isWhole { return Double(isNegative ? -whole : whole) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw failure("a number out of range") }
            return value
        }
    }
}
