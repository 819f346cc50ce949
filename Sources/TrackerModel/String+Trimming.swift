/// Trimming as Foundation's `CharacterSet` did it, without the part of Foundation that holds `CharacterSet`.
extension StringProtocol {
    /// Without spaces and tabs (any Unicode space separator) at either end; line breaks stay.
    public func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without white space or line breaks at either end.
    public func trimmingWhitespaceAndNewlines() -> String { trimming(isSpaceOrBreak) }

    /// Its first letter in upper case, to start a sentence or a label: "the Redis at…" → "The Redis at…".
    public var firstLetterUppercased: String { prefix(1).uppercased() + dropFirst() }

    /// Without white space or line breaks at the end; the start stays as it is.
    public func trimmingTrailingWhitespaceAndNewlines() -> String { trimming(isSpaceOrBreak, leading: false) }

    private func isSpaceOrBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator || (0x0A...0x0D).contains(scalar.value)
            || scalar == "\u{85}" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool, leading: Bool = true) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        let start = leading ? first : scalars.startIndex
        // Nothing to trim, the usual case (a token, a base id): the string as it is, not rebuilt scalar by scalar.
        if start == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return String(self) }
        return String(String.UnicodeScalarView(scalars[start...last]))
    }
}
