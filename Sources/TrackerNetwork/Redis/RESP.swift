/// One value of Redis's protocol (RESP2, which every Redis and Valkey from 2 on speaks).
public enum RESPValue: Equatable, Sendable {
    case simple(String)
    case error(String)
    case integer(Int)
    /// A bulk string; nil is Redis's null.
    case bulk([UInt8]?)
    /// An array; nil is the null array.
    case array([RESPValue]?)

    /// A bulk or simple string as text.
    public var text: String? {
        switch self {
        case .simple(let text): text
        case .bulk(let bytes?): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// `TIME`'s answer, seconds and microseconds, as seconds since 1970 on the Redis's clock; nil in another shape.
    public var redisTime: Double? {
        guard case .array(let parts?) = self, parts.count == 2, let seconds = parts[0].text.flatMap(Double.init),
            let micros = parts[1].text.flatMap(Double.init)
        else { return nil }
        return seconds + micros / 1_000_000
    }
}

/// RESP's two directions: a command as an array of bulk strings, and values read from a growing buffer.
public enum RESP {
    /// `words` as the array of bulk strings Redis reads a command as: any byte may appear in a word.
    public static func command(_ words: [String]) -> [UInt8] {
        var bytes = Array("*\(words.count)\r\n".utf8)
        for word in words {
            let utf8 = Array(word.utf8)
            bytes += Array("$\(utf8.count)\r\n".utf8) + utf8 + [13, 10]
        }
        return bytes
    }

    /// What went wrong reading a value: the stream is out of step and must be closed.
    public struct Malformed: Error, Equatable {
        public var reason: String
    }

    /// How deep arrays may nest: tracker's deepest answer (a stream's entries, `XREAD`: streams, a stream, its
    /// entries, an entry, its fields) is five levels; a reply nested deeper is not one tracker asked for, and reading it without a bound would recurse until the stack ran out.
    public static let deepestNesting = 5
    /// The longest bulk string read: tracker stores a few hundred bytes a key, a record of the team's copy a few
    /// kilobytes (Airtable's longest text is 100,000 characters a field), a news entry at most 256 KiB of ids; Redis
    /// would allow 512 MiB.
    public static let longestBulk = 16 << 20
    /// The longest line (a status, an error, a length) read.
    public static let longestLine = 1 << 16
    /// The most elements an array may announce (a cluster's slot map has at most 16,384 ranges).
    public static let mostElements = 1 << 16

    /// The first whole value in `buffer` from `start`, and where the next begins; nil when more bytes are needed.
    /// A value that breaks a bound (nesting, a bulk's length, an array's count) is malformed.
    public static func parse(_ buffer: [UInt8], from start: Int = 0) throws(Malformed) -> (RESPValue, Int)? {
        try parse(buffer, from: start, depth: 0)
    }

    private static func parse(_ buffer: [UInt8], from start: Int, depth: Int) throws(Malformed) -> (RESPValue, Int)? {
        guard start < buffer.count else { return nil }
        guard let lineEnd = lineEnd(buffer, from: start + 1) else {
            // A header line is a few bytes; one that never ends would otherwise be waited for until the deadline.
            if buffer.count - start > longestLine { throw Malformed(reason: "a line runs past \(longestLine) bytes") }
            return nil
        }
        let line = String(decoding: buffer[(start + 1)..<lineEnd], as: UTF8.self)
        let next = lineEnd + 2
        switch buffer[start] {
        case UInt8(ascii: "+"): return (.simple(line), next)
        case UInt8(ascii: "-"): return (.error(line), next)
        case UInt8(ascii: ":"):
            guard let value = Int(line) else { throw Malformed(reason: "an integer reads \"\(line.prefix(20))\"") }
            return (.integer(value), next)
        case UInt8(ascii: "$"):
            guard let length = Int(line), length >= -1, length <= longestBulk else {
                throw Malformed(reason: "a bulk length reads \"\(line.prefix(20))\"")
            }
            if length == -1 { return (.bulk(nil), next) }
            guard buffer.count >= next + length + 2 else { return nil }
            return (.bulk(Array(buffer[next..<next + length])), next + length + 2)
        case UInt8(ascii: "*"):
            guard let count = Int(line), count >= -1, count <= mostElements else {
                throw Malformed(reason: "an array length reads \"\(line.prefix(20))\"")
            }
            guard depth < deepestNesting else { throw Malformed(reason: "arrays nest deeper than \(deepestNesting)") }
            if count == -1 { return (.array(nil), next) }
            var items: [RESPValue] = []
            var position = next
            for _ in 0..<count {
                guard let (item, after) = try parse(buffer, from: position, depth: depth + 1) else { return nil }
                items.append(item)
                position = after
            }
            return (.array(items), position)
        default:
            throw Malformed(reason: "an answer starts with byte \(buffer[start])")
        }
    }

    /// Whether `buffer` holds a whole value from `start`, told by its headers alone (a bulk's bytes are stepped over,
    /// nothing is copied): a long answer arriving in pieces is parsed once, when it is all there, not again at each
    /// piece. The bounds are `parse`'s.
    public static func holdsWholeValue(_ buffer: [UInt8], from start: Int = 0) throws(Malformed) -> Bool {
        try end(buffer, from: start, depth: 0) != nil
    }

    private static func end(_ buffer: [UInt8], from start: Int, depth: Int) throws(Malformed) -> Int? {
        guard start < buffer.count else { return nil }
        guard let lineEnd = lineEnd(buffer, from: start + 1) else {
            if buffer.count - start > longestLine { throw Malformed(reason: "a line runs past \(longestLine) bytes") }
            return nil
        }
        let next = lineEnd + 2
        switch buffer[start] {
        case UInt8(ascii: "$"):
            guard let length = number(buffer, start + 1, lineEnd), length >= -1, length <= longestBulk else {
                throw Malformed(reason: "a bulk length is not a number in range")
            }
            if length == -1 { return next }
            return buffer.count >= next + length + 2 ? next + length + 2 : nil
        case UInt8(ascii: "*"):
            guard let count = number(buffer, start + 1, lineEnd), count >= -1, count <= mostElements else {
                throw Malformed(reason: "an array length is not a number in range")
            }
            guard depth < deepestNesting else { throw Malformed(reason: "arrays nest deeper than \(deepestNesting)") }
            var position = next
            for _ in 0..<max(0, count) {
                guard let after = try end(buffer, from: position, depth: depth + 1) else { return nil }
                position = after
            }
            return position
        default:
            return next
        }
    }

    /// The decimal number between `from` and `to`, with an optional minus sign; nil when it is not one.
    private static func number(_ buffer: [UInt8], _ from: Int, _ to: Int) -> Int? {
        guard from < to, to - from <= 20 else { return nil }
        var index = from
        let negative = buffer[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < to else { return nil }
        var value = 0
        while index < to {
            let digit = Int(buffer[index]) - 48
            guard digit >= 0 && digit <= 9 else { return nil }
            value = value &* 10 &+ digit
            index += 1
        }
        return negative ? -value : value
    }

    private static func lineEnd(_ buffer: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}
