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
            return ControlCharacters.isControl(scalar)
        }
        guard let found else { return }
        let shown = ControlCharacters.visible(found)
        let what = allowingLineBreaks ? "only newlines and tabs are allowed" : "control characters are not allowed"
        throw AppError.usage("\(flag) holds a control character (\(shown)); \(what)", command: command)
    }
}
