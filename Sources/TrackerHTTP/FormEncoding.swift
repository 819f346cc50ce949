#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `application/x-www-form-urlencoded`, as a query string and an HTML form's body are written: `+` a space, `%XX` a
/// byte of UTF-8.
public enum FormEncoding {
    /// The name-value pairs of `text`, in order; a pair that does not decode is left out.
    public static func pairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacing("+", with: " ").percentDecoded
            }
            guard let name = parts.first ?? nil else { return nil }
            guard parts.count == 2 else { return (name, "") }
            return parts[1].map { (name, $0) }
        }
    }

    /// The pairs of a form's body.
    public static func pairs(_ body: Data) -> [(String, String)] { pairs(String(decoding: body, as: UTF8.self)) }

    /// The value of `name` when given exactly once; nil when missing or repeated (OAuth refuses repeated parameters).
    public static func single(_ name: String, in pairs: [(String, String)]) -> String? {
        let found = pairs.filter { $0.0 == name }
        return found.count == 1 ? found[0].1 : nil
    }

    /// The pairs written as a form's body or a query, every byte but RFC 3986's unreserved ones escaped.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// `text` with every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return escaped
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
