import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// Text from Airtable made safe and measurable for a terminal or a line-based format.
///
/// Anyone who can edit the base controls its text, so no control character reaches the output raw (docs/contract.md
/// "Text
/// that came from Airtable"): C0 controls and DEL become caret notation (`^[`, `^G`, `^?`), C1 controls and the
/// bidirectional overrides become `<U+009B>`. JSON never goes through here; it escapes on its own.
package enum TextCells {
    /// What to do with tabs and line breaks, the only controls that may carry meaning.
    package enum Breaks {
        /// Every run of tabs and line breaks becomes one space, so a value stays on its row and in its column.
        case fold
        /// Newlines stay (notes in `show`); tabs become a space, carriage returns caret notation.
        case keepNewlines
        /// Newlines and tabs stay (CSV quotes them); carriage returns become caret notation.
        case keepNewlinesAndTabs
    }

    /// `text` with every control character made visible and harmless.
    package static func safe(_ text: String, breaks: Breaks = .fold) -> String {
        // Printable ASCII needs nothing, and its bytes say so faster than its scalars (a report folds every name).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: needsWork) else { return text }
        var result = String.UnicodeScalarView()
        var inBreak = false
        // By scalar, except that a Windows line end (one Character) counts as one newline.
        for character in text {
            let scalar = character == "\r\n" ? "\n" : character.unicodeScalars.first!
            let isTab = scalar == "\t"
            let isNewline = scalar == "\n" || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{85}"
            switch breaks {
            case .fold where isTab || isNewline:
                if !inBreak { result.append(" ") }
                inBreak = true
                continue
            case .keepNewlines where isTab:
                result.append(" ")
            case .keepNewlines where isNewline, .keepNewlinesAndTabs where isNewline || isTab:
                result.append(isTab ? "\t" : "\n")
            default:
                for scalar in character.unicodeScalars { appendVisible(scalar, to: &result) }
            }
            inBreak = false
        }
        return String(result)
    }

    /// TSV and table cells: safe, with tabs and line breaks folded to one space.
    package static func folded(_ text: String) -> String { safe(text, breaks: .fold) }

    private static func needsWork(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// A C0 or C1 control, DEL, or a bidirectional override: what must never reach a terminal raw.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool { ControlCharacters.isControl(scalar) }

    /// One scalar as it is shown: caret notation or `<U+XXXX>` for a control, else itself.
    package static func visible(_ scalar: Unicode.Scalar) -> String { ControlCharacters.visible(scalar) }

    private static func appendVisible(_ scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        ControlCharacters.appendVisible(scalar, to: &result)
    }

    // MARK: - Width

    /// The number of terminal columns `text` takes, counted by grapheme cluster: wide East Asian characters and
    /// emoji (🚀, 👩‍💻, 🇫🇷, ❤️) take two, combining marks none.
    package static func width(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        if isOneColumnEach(text) { return text.unicodeScalars.count }
        return text.reduce(0) { $0 + width($1) }
    }

    /// Whether every scalar of `text` is a character of its own one column wide: printable ASCII, Latin-1 and the
    /// Latin, Greek and Cyrillic letters before the combining marks, and the dashes, quotes, bullet and ellipsis
    /// (U+2010-U+2027). Such text is measured and cut by scalar, without the grapheme rules (a card's "·", "…").
    static func isOneColumnEach(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x20..<0x7F, 0xA0..<0xAD, 0xAE..<0x300, 0x370..<0x483, 0x2010...0x2027: true
            default: false
            }
        }
    }

    /// The columns one grapheme cluster takes.
    package static func width(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.isEmojiPresentation { return 2 }
        // A text-style symbol asked for as emoji (❤️, 1️⃣), or joined into an emoji sequence.
        if scalars.count > 1, first.properties.isEmoji,
            scalars.contains(where: { $0 == "\u{FE0F}" || $0 == "\u{200D}" || $0 == "\u{20E3}" })
        {
            return 2
        }
        if isWide(first) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return 1
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `limit` columns, ending in `ellipsis` (one column) when cut, then padded with spaces to
    /// `limit`.
    package static func fit(_ text: String, _ limit: Int, ellipsis: String = "…") -> String {
        var out = ""
        appendFitted(text, limit, ellipsis: ellipsis, to: &out)
        return out
    }

    /// `text` after spaces to `width` columns: a number in a right-aligned column.
    package static func rightAligned(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - self.width(text))) + text
    }

    /// `line` without the spaces its last padded column left at its end.
    package static func withoutTrailingSpaces(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }

    /// Appends `fit(text, limit)` to `out` without making it first: a report fits a name on every line.
    package static func appendFitted(_ text: String, _ limit: Int, ellipsis: String = "…", to out: inout String) {
        // One scan says whether the text goes by scalar, for its width and its cut alike.
        let byScalar = isOneColumnEach(text)
        let total = byScalar ? text.unicodeScalars.count : width(text)
        if total <= limit {
            out += text
            for _ in 0..<(limit - total) { out += " " }
            return
        }
        var used = 0
        if byScalar {
            for scalar in text.unicodeScalars {
                if used + 1 > limit - 1 { break }
                out.unicodeScalars.append(scalar)
                used += 1
            }
            out += ellipsis
            for _ in 0..<max(0, limit - 1 - used) { out += " " }
            return
        }
        for character in text {
            let w = width(character)
            if used + w > limit - 1 { break }
            out.append(character)
            used += w
        }
        out += ellipsis
        for _ in 0..<max(0, limit - 1 - used) { out += " " }
    }

    /// Breaks `line` at spaces so no piece is wider than `width` columns (a longer word stands alone).
    package static func wrap(_ line: String, to width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            if !current.isEmpty && Self.width(current) + 1 + Self.width(String(word)) > width {
                lines.append(current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        return lines + [current]
    }
}

extension Int {
    /// The number with a comma every three digits, whatever the locale (cron's is often C).
    package func formatted() -> String {
        let digits = String(abs(self))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (self < 0 ? "-" : "") + text
    }
}
