/// The characters that must never reach a terminal raw (docs/contract.md "Text that came from Airtable"), and how each
/// is
/// shown instead: C0 controls and DEL in caret notation (`^[`, `^G`, `^?`), C1 controls and the bidirectional
/// overrides as `<U+009B>`.
public enum ControlCharacters {
    /// A C0 or C1 control, DEL, or a bidirectional override.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    /// One scalar as it is shown: caret notation or `<U+XXXX>` for a control, else itself.
    public static func visible(_ scalar: Unicode.Scalar) -> String {
        var result = String.UnicodeScalarView()
        appendVisible(scalar, to: &result)
        return String(result)
    }

    /// Appends `scalar` as it is shown.
    public static func appendVisible(_ scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        switch scalar.value {
        case 0x00..<0x20:
            result.append("^")
            result.append(Unicode.Scalar(UInt8(scalar.value + 0x40)))
        case 0x7F:
            result.append(contentsOf: "^?".unicodeScalars)
        case 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            result.append(
                contentsOf: ("<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">").unicodeScalars)
        default:
            result.append(scalar)
        }
    }
}
