/// What text tracker agrees to write to the base or put into a formula.
public enum TextRules {
    /// The first character `value` may not hold, nil when it may be written: no control character in names and other
    /// one-line values, and only newline and tab in notes (`allowingLineBreaks`). Such text would reach other people's
    /// terminals, and formulas cannot safely quote it.
    public static func forbiddenCharacter(in value: String, allowingLineBreaks: Bool = false) -> Unicode.Scalar? {
        value.unicodeScalars.first { scalar in
            if allowingLineBreaks && (scalar == "\n" || scalar == "\t") { return false }
            return ControlCharacters.isControl(scalar)
        }
    }
}
