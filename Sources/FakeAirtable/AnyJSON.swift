#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// JSON as the fake keeps it, dictionaries and arrays of `Any` (the shape JSONSerialization gives), read and written
/// through tracker's own JSON so the fake needs no more of Foundation than FoundationEssentials.
public enum AnyJSON {
    /// JSON's null as a value in a dictionary or array.
    public struct Null: Sendable, Equatable {
        public init() {}
    }

    /// The value of a JSON text, or nil when it is not JSON.
    static func parse(_ data: Data) -> Any? {
        (try? JSONParser.parse(data)).map(value)
    }

    /// `value` as JSON text, slashes not escaped.
    static func data(_ value: Any) -> Data { Data(json(value).serialized().utf8) }

    static func value(_ json: JSONValue) -> Any {
        switch json {
        case .null: Null()
        case .bool(let flag): flag
        case .number(let number):
            number == number.rounded() && abs(number) < 9e15 ? Int(number) as Any : number as Any
        case .string(let text): text
        case .array(let items): items.map(value)
        case .object(let members):
            Dictionary(members.map { ($0.0, value($0.1)) }) { _, last in last }
        }
    }

    static func json(_ value: Any) -> JSONValue {
        switch value {
        case is Null: return .null
        case let text as String: return .string(text)
        case let dictionary as [String: Any]:
            return .object(dictionary.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        case let items as [Any]: return .array(items.map(json))
        default: break
        }
        if isBool(value), let flag = value as? Bool { return .bool(flag) }
        if let number = number(value) { return .number(number) }
        if isNull(value) { return .null }
        return .string("\(value)")
    }

    /// A number (never `true` or `false`) as a Double.
    static func number(_ value: Any) -> Double? {
        guard !isBool(value) else { return nil }
        switch value {
        case let number as Int: return Double(number)
        case let number as Double: return number
        case let number as any BinaryInteger: return Double(Int64(number))
        case let number as any BinaryFloatingPoint: return Double(number)
        default:
            // An NSNumber from a caller that uses Foundation casts through the runtime's bridging.
            return value as? Double
        }
    }

    /// Whether `value` is `true` or `false`: a Swift Bool, or Foundation's boolean NSNumber (whose class says so; a
    /// number would cast to Bool too).
    static func isBool(_ value: Any) -> Bool {
        if value is Bool && type(of: value) == Bool.self { return true }
        return String(describing: type(of: value)).contains("Boolean")
    }

    /// Whether `value` is a null: ours, an empty Optional, or Foundation's NSNull.
    static func isNull(_ value: Any) -> Bool {
        if value is Null { return true }
        if case Optional<Any>.none = value as Any? { return true }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional && mirror.children.isEmpty { return true }
        return String(describing: type(of: value)) == "NSNull"
    }
}
