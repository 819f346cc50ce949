import TrackerModel
import TrackerOperations

extension CardDetail {
    /// The card from what `show` printed: its fields and comments as they are, its Tasks section replaced by the
    /// tasks themselves (from the Tasks table, with their ids, so Space can tick one).
    static func parse(id: String, text: String, tasks: [JSONValue]?) -> CardDetail {
        var detail = CardDetail(id: id, name: id)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last?.isEmpty == true { lines.removeLast() }
        if let first = lines.first { detail.name = first.trimmingWhitespace() }
        let tasksAt = lines.firstIndex { $0.hasPrefix("Tasks  ") }
        let commentsAt = lines.firstIndex { $0.hasPrefix("Comments") }
        let fieldsEnd = tasksAt ?? commentsAt ?? lines.count
        // The first line is the name, which the card's header shows.
        detail.fields = lines[min(1, fieldsEnd)..<fieldsEnd].map { ("", $0) }
        while detail.fields.last?.1.isEmpty == true { detail.fields.removeLast() }
        if let commentsAt { detail.comments = [""] + lines[commentsAt...] }
        detail.tasks = (tasks ?? []).compactMap { task in
            guard let id = task["id"]?.stringValue else { return nil }
            let estimate = task["estimate"]?.numberValue.map { number in
                number == number.rounded() ? "\(Int(number))d" : "\(number)d"
            }
            return TaskLine(
                id: id, name: task["name"]?.stringValue ?? id, done: task["complete"]?.boolValue ?? false,
                assignee: task["assignee"]?["name"]?.stringValue, estimate: estimate)
        }
        return detail
    }
}
