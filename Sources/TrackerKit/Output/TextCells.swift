/// Helpers for putting free text into one cell of a line-based format.
enum TextCells {
    /// Folds every run of tabs and line breaks into a single space, so a value cannot split a row or a column.
    static func folded(_ text: String) -> String {
        guard text.contains(where: { $0 == "\t" || $0.isNewline }) else { return text }
        var result = ""
        var inRun = false
        for character in text {
            if character == "\t" || character.isNewline {
                if !inRun { result.append(" ") }
                inRun = true
            } else {
                result.append(character)
                inRun = false
            }
        }
        return result
    }

    /// The number of terminal columns `text` takes: wide East Asian characters count two, combining marks none.
    static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width($1) }
    }

    private static func width(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: return 0
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default: return scalar.value < 0x20 ? 0 : 1
        }
    }

    /// `text` cut to at most `limit` columns, ending in "…" when cut, then padded with spaces to `limit`.
    static func fit(_ text: String, _ limit: Int) -> String {
        let total = width(text)
        if total <= limit { return text + String(repeating: " ", count: limit - total) }
        var result = ""
        var used = 0
        for character in text {
            let w = width(String(character))
            if used + w > limit - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…" + String(repeating: " ", count: max(0, limit - 1 - used))
    }
}
