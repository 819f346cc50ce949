#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// Comments for a person at a terminal: the author and when, then the text wrapped to the width, mentions as `@Name`.
package struct CommentView {
    package var now: Date
    package var zone: Zone
    package var today: CalendarDate
    package var style: Style
    package var width: Int

    /// Names of the people the comments mention, from Airtable's `mentioned` and the authors.
    package static func names(_ comments: [RecordComment]) -> [String: String] {
        var names: [String: String] = [:]
        for comment in comments {
            if let id = comment.author.id, let name = comment.author.name { names[id] = name }
            for (id, person) in comment.object["mentioned"]?.objectMembers ?? [] {
                if let name = person["displayName"]?.stringValue ?? person["email"]?.stringValue { names[id] = name }
            }
        }
        return names
    }

    /// The text a person reads: mentions as `@Name` where known.
    package static func text(_ comment: RecordComment, names: [String: String]) -> String {
        CommentText.showingMentions(in: comment.text, names: names)
    }

    /// Each comment as a dim heading line and its text, indented, wrapped and made terminal-safe.
    package func render(_ comments: [RecordComment]) -> String {
        let names = Self.names(comments)
        var out = ""
        for (index, comment) in comments.enumerated() {
            if index > 0 { out += "\n" }
            let author = TextCells.folded(comment.author.name ?? comment.author.email ?? comment.author.id ?? "someone")
            out += style.bold(author) + "  " + style.dim(when(comment.createdTime)) + "\n"
            let text = TextCells.safe(Self.text(comment, names: names), breaks: .keepNewlines)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                for piece in TextCells.wrap(String(line), to: max(20, width - 2)) { out += "  " + piece + "\n" }
            }
        }
        return out
    }

    /// "5 minutes ago", "3 hours ago", else the day in words ("yesterday", "2 weeks ago").
    package func when(_ createdTime: String) -> String {
        guard let instant = ISOInstant.date(createdTime) else { return TextCells.folded(createdTime) }
        let seconds = Int(now.timeIntervalSince(instant))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60) minute\(seconds / 60 == 1 ? "" : "s") ago"
        case ..<(6 * 3600): return "\(seconds / 3600) hour\(seconds / 3600 == 1 ? "" : "s") ago"
        default:
            let day = CalendarDate(instant, in: zone)
            return day.relative(to: today)
        }
    }
    /// Each stored value given.
    package init(now: Date, zone: Zone, today: CalendarDate, style: Style, width: Int) {
        self.now = now
        self.zone = zone
        self.today = today
        self.style = style
        self.width = width
    }
}
