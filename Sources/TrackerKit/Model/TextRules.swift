/// What text tracker agrees to write to the base or put into a formula.
enum TextRules {
    /// Refuses a value holding a control character: none in names and other one-line values, and only newline and
    /// tab in notes (`allowingLineBreaks`). Such text would reach other people's terminals, and formulas cannot
    /// safely quote it.
    static func refuseControlCharacters(
        _ value: String, flag: String, command: String?, allowingLineBreaks: Bool = false
    ) throws {
        let found = value.unicodeScalars.first { scalar in
            if allowingLineBreaks && (scalar == "\n" || scalar == "\t") { return false }
            return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
        guard let found else { return }
        let shown = TextCells.visible(found)
        let what = allowingLineBreaks ? "only newlines and tabs are allowed" : "control characters are not allowed"
        throw AppError.usage("\(flag) holds a control character (\(shown)); \(what)", command: command)
    }
}
