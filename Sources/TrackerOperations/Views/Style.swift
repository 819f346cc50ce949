import TrackerAPI
import TrackerNetwork
import TrackerSystem
import TrackerModel
/// ANSI styling that is a no-op when colour is off, so callers never branch on it.
package struct Style: Sendable {
    package var isEnabled: Bool

    package init(isEnabled: Bool) { self.isEnabled = isEnabled }

    package func red(_ text: String) -> String { wrap(text, "31") }
    package func green(_ text: String) -> String { wrap(text, "32") }
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    package func bold(_ text: String) -> String { wrap(text, "1") }
    package func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        isEnabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// The colour for a status word; the word itself always carries the meaning.
    package func status(_ status: ProjectStatus, _ text: String) -> String {
        switch status {
        case .overdue: red(text)
        case .done: green(text)
        case .open: text
        }
    }
}
