#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import TrackerModel

/// A value in Airtable's formula language, as far as the fake needs it.
enum FormulaValue: Equatable {
    case blank
    case bool(Bool)
    case number(Double)
    case string(String)

    var isTruthy: Bool {
        switch self {
        case .blank: false
        case .bool(let value): value
        case .number(let value): value != 0 && !value.isNaN
        case .string(let value): !value.isEmpty
        }
    }

    var text: String {
        switch self {
        case .blank: ""
        case .bool(let value): value ? "1" : "0"
        case .number(let value): value == value.rounded() ? String(Int(value)) : String(value)
        case .string(let value): value
        }
    }

    var number: Double {
        switch self {
        case .blank: 0
        case .bool(let value): value ? 1 : 0
        case .number(let value): value
        case .string(let value): Double(value) ?? 0
        }
    }
}

struct FormulaError: Error, CustomStringConvertible {
    var description: String
}

/// Parses and evaluates the subset of Airtable formulas that a client like tracker sends in `filterByFormula`.
///
/// Strings take single or double quotes with backslash escapes, as Airtable's do; unknown fields and functions are
/// errors, so the fake answers 422 INVALID_FILTER_BY_FORMULA as Airtable would.
struct FormulaEvaluator {
    indirect enum Node {
        case literal(FormulaValue)
        case field(String)
        case call(String, [Node])
        case binary(String, Node, Node)
        case negate(Node)
    }

    let root: Node

    init(_ text: String, knownFields: Set<String>) throws {
        var parser = Parser(scalars: Array(text.unicodeScalars), knownFields: knownFields)
        root = try parser.parseExpression()
        parser.skipSpace()
        guard parser.index == parser.scalars.count else {
            throw FormulaError(description: "Invalid formula. Please check your formula text.")
        }
    }

    /// Evaluates the formula against a record's cells, id and times, `today` standing in for TODAY().
    func evaluate(_ cell: (String) -> FormulaValue, record: StoredRecord, today: String) throws -> FormulaValue {
        try Self.evaluate(root, cell, record: record, today: today)
    }

    private static func evaluate(_ node: Node, _ cell: (String) -> FormulaValue, record: StoredRecord, today: String)
        throws -> FormulaValue
    {
        func value(_ node: Node) throws -> FormulaValue { try evaluate(node, cell, record: record, today: today) }
        switch node {
        case .literal(let literal): return literal
        case .field(let name): return cell(name)
        case .negate(let inner): return .number(-(try value(inner).number))
        case .binary(let op, let left, let right):
            let l = try value(left), r = try value(right)
            switch op {
            case "&": return .string(l.text + r.text)
            case "+": return .number(l.number + r.number)
            case "-": return .number(l.number - r.number)
            case "*": return .number(l.number * r.number)
            case "/": return .number(r.number == 0 ? .nan : l.number / r.number)
            default: return .bool(compare(op, l, r))
            }
        case .call(let name, let arguments):
            switch name {
            case "RECORD_ID": return .string(record.id)
            case "CREATED_TIME": return .string(record.createdTime)
            case "LAST_MODIFIED_TIME":
                let names = try arguments.map { argument in
                    guard case .field(let name) = argument else {
                        throw FormulaError(description: "Invalid formula. LAST_MODIFIED_TIME takes field references.")
                    }
                    return name
                }
                return .string(record.lastModified(names))
            default: break
            }
            return try call(name, arguments.map(value), today: today)
        }
    }

    private static func compare(_ op: String, _ l: FormulaValue, _ r: FormulaValue) -> Bool {
        let ordering: Int
        switch (l, r) {
        case (.number, _), (_, .number), (.bool, _), (_, .bool):
            ordering = l.number < r.number ? -1 : (l.number > r.number ? 1 : 0)
        default:
            ordering = l.text < r.text ? -1 : (l.text > r.text ? 1 : 0)
        }
        switch op {
        case "=": return ordering == 0
        case "!=": return ordering != 0
        case "<": return ordering < 0
        case ">": return ordering > 0
        case "<=": return ordering <= 0
        default: return ordering >= 0
        }
    }

    private static func call(_ name: String, _ args: [FormulaValue], today: String) throws -> FormulaValue {
        func arg(_ index: Int) throws -> FormulaValue {
            guard index < args.count else {
                throw FormulaError(description: "Invalid formula. \(name) needs more arguments.")
            }
            return args[index]
        }
        func day(_ value: FormulaValue) -> Int? { FakeDates.dayNumber(value.text) }
        switch name {
        case "AND": return .bool(args.allSatisfy(\.isTruthy))
        case "OR": return .bool(args.contains(where: \.isTruthy))
        case "NOT": return .bool(!(try arg(0).isTruthy))
        case "IF": return try arg(0).isTruthy ? try arg(1) : (args.count > 2 ? args[2] : .blank)
        case "TRUE": return .bool(true)
        case "FALSE": return .bool(false)
        case "BLANK": return .blank
        case "LOWER": return .string(try arg(0).text.lowercased())
        case "UPPER": return .string(try arg(0).text.uppercased())
        case "TRIM": return .string(try arg(0).text.trimmingWhitespace())
        case "LEN": return .number(Double(try arg(0).text.count))
        case "CONCATENATE": return .string(args.map(\.text).joined())
        case "FIND", "SEARCH":
            let needle = try arg(0).text, haystack = try arg(1).text
            let (n, h) = name == "SEARCH" ? (needle.lowercased(), haystack.lowercased()) : (needle, haystack)
            if n.isEmpty { return .number(h.isEmpty ? 0 : 1) }
            guard let range = h.firstRange(of: n) else { return .number(0) }
            return .number(Double(h.distance(from: h.startIndex, to: range.lowerBound) + 1))
        case "TODAY": return .string(today)
        case "IS_SAME":
            guard let a = day(try arg(0)), let b = day(try arg(1)) else { return .bool(false) }
            return .bool(a == b)
        case "IS_BEFORE", "IS_AFTER":
            // To the second: a date alone is its midnight, UTC.
            guard let a = FakeDates.instant(try arg(0).text), let b = FakeDates.instant(try arg(1).text) else {
                return .bool(false)
            }
            return .bool(name == "IS_BEFORE" ? a < b : a > b)
        case "DATETIME_PARSE":
            // An ISO 8601 instant (the one form tracker sends) reads as that instant; anything else is an error value.
            let text = try arg(0).text
            return FakeDates.instant(text) == nil ? .blank : .string(text)
        case "DATETIME_DIFF":
            guard let a = day(try arg(0)), let b = day(try arg(1)) else { return .blank }
            return .number(Double(a - b))
        case "DATEADD":
            guard let a = day(try arg(0)) else { return .blank }
            return .string(FakeDates.string(dayNumber: a + Int(try arg(1).number)))
        default: throw FormulaError(description: "Invalid formula. Unknown function \(name).")
        }
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        let knownFields: Set<String>
        var index = 0

        mutating func skipSpace() {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        }

        mutating func parseExpression() throws -> Node { try parseBinary(level: 0) }

        private static let levels: [[String]] = [["=", "!=", "<=", ">=", "<", ">"], ["&"], ["+", "-"], ["*", "/"]]

        private mutating func parseBinary(level: Int) throws -> Node {
            guard level < Self.levels.count else { return try parseUnary() }
            var left = try parseBinary(level: level + 1)
            while true {
                skipSpace()
                guard let op = Self.levels[level].first(where: matches) else { return left }
                index += op.unicodeScalars.count
                left = .binary(op, left, try parseBinary(level: level + 1))
            }
        }

        private func matches(_ op: String) -> Bool {
            let ops = Array(op.unicodeScalars)
            guard index + ops.count <= scalars.count else { return false }
            return Array(scalars[index..<index + ops.count]) == ops
        }

        private mutating func parseUnary() throws -> Node {
            skipSpace()
            if matches("-") {
                index += 1
                return .negate(try parseUnary())
            }
            return try parsePrimary()
        }

        private mutating func parsePrimary() throws -> Node {
            skipSpace()
            guard index < scalars.count else { throw invalid() }
            let scalar = scalars[index]
            switch scalar {
            case "'", "\"": return .literal(.string(try parseString(quote: scalar)))
            case "{":
                index += 1
                var name = ""
                while index < scalars.count, scalars[index] != "}" {
                    name.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard index < scalars.count else { throw invalid() }
                index += 1
                guard knownFields.contains(name) else {
                    throw FormulaError(description: "Unknown field names: \(name.lowercased())")
                }
                return .field(name)
            case "(":
                index += 1
                let inner = try parseExpression()
                skipSpace()
                guard matches(")") else { throw invalid() }
                index += 1
                return inner
            case "0"..."9", ".":
                var text = ""
                while index < scalars.count, ("0"..."9").contains(scalars[index]) || scalars[index] == "." {
                    text.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard let number = Double(text) else { throw invalid() }
                return .literal(.number(number))
            default:
                var name = ""
                while index < scalars.count, scalars[index].properties.isAlphabetic || scalars[index] == "_" {
                    name.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard !name.isEmpty else { throw invalid() }
                skipSpace()
                guard matches("(") else { throw invalid() }
                index += 1
                var arguments: [Node] = []
                skipSpace()
                if matches(")") {
                    index += 1
                    return .call(name.uppercased(), arguments)
                }
                while true {
                    arguments.append(try parseExpression())
                    skipSpace()
                    if matches(")") {
                        index += 1
                        return .call(name.uppercased(), arguments)
                    }
                    guard matches(",") else { throw invalid() }
                    index += 1
                }
            }
        }

        private mutating func parseString(quote: Unicode.Scalar) throws -> String {
            index += 1
            var text = ""
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == quote { return text }
                if scalar == "\\" {
                    guard index < scalars.count else { throw invalid() }
                    let escaped = scalars[index]
                    index += 1
                    switch escaped {
                    case "n": text += "\n"
                    case "t": text += "\t"
                    default: text.unicodeScalars.append(escaped)
                    }
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
            throw invalid()
        }

        private func invalid() -> FormulaError {
            FormulaError(description: "Invalid formula. Please check your formula text.")
        }
    }
}

/// Date arithmetic on `YYYY-MM-DD` strings (Airtable date cells and date-only literals).
enum FakeDates {
    /// The number `count` ASCII digits make from `start` in `bytes`; nil when one is not a digit.
    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> Int? {
        var value = 0
        for byte in bytes[start..<start + count] {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    static func dayNumber(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { dayNumber($0) } ?? slowDayNumber(text)
    }

    /// `YYYY-MM-DD` read by bytes, in place: formulas over 50,000 records parse dates millions of times.
    private static func dayNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 10, bytes[4] == 45, bytes[7] == 45, let year = digits(bytes, from: 0, count: 4),
            let month = digits(bytes, from: 5, count: 2), let day = digits(bytes, from: 8, count: 2)
        else { return nil }
        return dayNumber(year: year, month: month, day: day)
    }

    /// Dates written otherwise (`+12345-01-01`, one-digit months): split into numbers.
    private static func slowDayNumber(_ text: String) -> Int? {
        let parts = text.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count >= 10 else { return nil }
        return dayNumber(year: parts[0], month: parts[1], day: parts[2])
    }

    private static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468
    }

    /// Seconds since 1970 of `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM:SS[.sss]Z`.
    static func instant(_ text: String) -> Double? {
        var text = text
        let fast = text.withUTF8 { bytes -> Double?? in
            guard let day = dayNumber(bytes) else { return .none }
            guard bytes.count > 10, bytes[10] == UInt8(ascii: "T") else {
                return bytes.count == 10 ? Double(day) * 86400 : .none
            }
            guard bytes.count >= 19, bytes[13] == 58, bytes[16] == 58, let hours = digits(bytes, from: 11, count: 2),
                let minutes = digits(bytes, from: 14, count: 2), let seconds = digits(bytes, from: 17, count: 2)
            else { return .none }
            return Double(day) * 86400 + Double(hours * 3600 + minutes * 60 + seconds)
        }
        return fast ?? slowInstant(text)
    }

    /// `instant` for text the byte reading does not take: split into numbers.
    private static func slowInstant(_ text: String) -> Double? {
        guard let day = dayNumber(text) else { return nil }
        let time = text.dropFirst(10)
        guard time.hasPrefix("T") else { return Double(day) * 86400 }
        let parts = time.dropFirst().prefix(8).split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return Double(day) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    static func string(dayNumber: Int) -> String {
        let z = dayNumber + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return zeroPadded(year, 4) + "-" + zeroPadded(month, 2) + "-" + zeroPadded(day, 2)
    }

    /// Today's date in UTC, as Airtable's TODAY() gives it.
    static func today() -> String {
        string(dayNumber: Int(floor(FakeAirtable.now.timeIntervalSince1970 / 86400)))
    }
}
