import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
extension TextRules {
    /// Refuses a value the text rules forbid as a usage error naming the flag (or import column) and the character.
    package static func refuseControlCharacters(
        _ value: String, flag: String, command: String?, allowingLineBreaks: Bool = false
    ) throws {
        guard let found = forbiddenCharacter(in: value, allowingLineBreaks: allowingLineBreaks) else { return }
        let shown = ControlCharacters.visible(found)
        let what = allowingLineBreaks ? "only newlines and tabs are allowed" : "control characters are not allowed"
        throw AppError.usage("\(flag) holds a control character (\(shown)); \(what)", command: command)
    }
}
