/// Builds Airtable formulas in which whatever the user typed stays a string value and can never become syntax.
public enum Formula {
    /// A single-quoted string literal: backslashes, quotes and newlines escaped, so no input can close the quote.
    public static func literal(_ value: String) -> String {
        var text = "'"
        for character in value.unicodeScalars {
            switch character {
            case "\\": text += "\\\\"
            case "'": text += "\\'"
            case "\n": text += "\\n"
            default: text.unicodeScalars.append(character)
            }
        }
        return text + "'"
    }

    /// A field reference; field names come from tracker, never from the user, and cannot contain braces.
    public static func field(_ name: String) -> String { "{\(name)}" }

    /// `{Name} = 'value'`.
    public static func nameEquals(_ name: String) -> String { "\(field(ProjectField.name)) = \(literal(name))" }
}
