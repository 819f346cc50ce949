import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// What may reach standard error: text with its line breaks and tabs, every other control character shown as
/// docs/contract.md "Text that came from Airtable" says, and no token.
package enum StandardErrorText {
    package static func safe(_ text: String, concealing secrets: [String] = []) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacing(secret, with: TokenMask.masked(secret))
        }
        text = maskingTokenShapes(text)
        guard text.unicodeScalars.contains(where: { ControlCharacters.isControl($0) && $0 != "\n" && $0 != "\t" })
        else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\t" {
                result.append(scalar)
            } else {
                ControlCharacters.appendVisible(scalar, to: &result)
            }
        }
        return String(result)
    }

    /// Anything shaped like a personal access token (`pat`, 14 letters or digits, a dot, 64 hex digits) masked, even
    /// before tracker knows which token is in use: one pasted into the wrong key must not be echoed back.
    package static func maskingTokenShapes(_ text: String) -> String {
        guard text.contains("pat") else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if let length = tokenLength(scalars, at: index) {
                let token = String(String.UnicodeScalarView(scalars[index..<index + length]))
                result.append(contentsOf: TokenMask.masked(token).unicodeScalars)
                index += length
            } else {
                result.append(scalars[index])
                index += 1
            }
        }
        return String(result)
    }

    private static func tokenLength(_ scalars: [Unicode.Scalar], at start: Int) -> Int? {
        let length = 3 + 14 + 1 + 64
        guard start + length <= scalars.count, scalars[start] == "p", scalars[start + 1] == "a",
            scalars[start + 2] == "t", scalars[start + 17] == "."
        else { return nil }
        func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
        }
        func isHex(_ scalar: Unicode.Scalar) -> Bool {
            ("0"..."9").contains(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
        }
        guard scalars[(start + 3)..<(start + 17)].allSatisfy(isAlphanumeric),
            scalars[(start + 18)..<(start + length)].allSatisfy(isHex)
        else { return nil }
        return length
    }
}
