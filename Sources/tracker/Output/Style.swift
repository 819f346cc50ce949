import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
import TrackerOperations
/// ANSI styling that is a no-op when colour is off, so callers never branch on it.
struct Style: Sendable {
    var isEnabled: Bool

    init(isEnabled: Bool) { self.isEnabled = isEnabled }

    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        isEnabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// The colour for a status word; the word itself always carries the meaning.
    func status(_ status: ProjectStatus, _ text: String) -> String {
        switch status {
        case .overdue: red(text)
        case .done: green(text)
        case .open: text
        }
    }
}
