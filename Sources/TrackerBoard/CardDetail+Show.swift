#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel
import TrackerOperations

extension CardDetail {
    /// The card of what `show` read: its fields and newest comments laid out as `show` lays them out on a terminal
    /// `width` wide (without colour), its tasks as the Tasks table has them (with their ids, so Space can tick one).
    package init(_ read: ProjectDetail, target: String, width: Int, host: BoardHost) {
        self.init(id: target, name: target)
        let plain = Style(isEnabled: false)
        var lines = Self.lines(
            read.fieldsView(today: host.today, style: plain, width: width, timeZone: host.timeZone))
        // The first line is the name, which the card's header shows.
        if let first = lines.first { name = first.trimmingWhitespace() }
        lines = Array(lines.dropFirst())
        fields = lines.map { ("", $0) }
        if let ending = read.commentsView(
            target: target, now: host.now(), zone: host.timeZone, today: host.today, style: plain, width: width)
        {
            // The ending starts with a blank line, which the card keeps before the heading.
            comments = Self.lines(ending)
        }
        tasks = (read.tasks ?? []).map { task in
            let estimate = task.estimate.map { number in number == number.rounded() ? "\(Int(number))d" : "\(number)d" }
            return TaskLine(
                id: task.id, name: task.name ?? task.id, done: task.isComplete, assignee: task.assignee?.name,
                estimate: estimate)
        }
    }

    /// The text's lines, without the empty ones that end it.
    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
