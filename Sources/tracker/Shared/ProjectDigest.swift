#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// `tracker report`'s four sections for a day and a span of days, sorted as cli-spec.md says.
struct ProjectDigest {
    enum Section: String, CaseIterable {
        case overdue, due, done, new

        var title: String {
            switch self {
            case .overdue: "Overdue"
            case .due: "Due soon"
            case .done: "Done"
            case .new: "New"
            }
        }
    }

    /// How each section's projects are grouped.
    enum Grouping: String, CaseIterable, Sendable {
        case none, lead, category
    }

    var date: CalendarDate
    var days: Int
    /// Where "the last N days" begin: local midnight N-1 days ago, in UTC as Airtable writes times.
    var since: String
    private(set) var projects: [Section: [Project]] = [:]

    init(date: CalendarDate, days: Int, timeZone: Zone) {
        self.date = date
        self.days = days
        since = Self.start(of: CalendarDate(dayNumber: date.dayNumber - days + 1), in: timeZone)
    }

    subscript(section: Section) -> [Project] { projects[section] ?? [] }

    var isEmpty: Bool { projects.values.allSatisfy(\.isEmpty) }

    /// Puts a project the digest's formula matched into every section it qualifies for.
    ///
    /// A complete project is in the listing only because it was completed or created in the span; created in it, it
    /// was completed in it too (it did not exist before), so every complete one is done.
    mutating func add(_ project: Project) {
        if project.isComplete {
            projects[.done, default: []].append(project)
        } else if let due = project.due {
            if due < date {
                projects[.overdue, default: []].append(project)
            } else if due.dayNumber < date.dayNumber + days {
                projects[.due, default: []].append(project)
            }
        }
        // Times compared to the second as text: both are UTC in the same layout up to the seconds.
        if project.createdTime.prefix(19) >= since.prefix(19) { projects[.new, default: []].append(project) }
    }

    /// Overdue oldest first, due soon soonest first, new newest first. Done by due date, latest first: Airtable
    /// gives a listing no completion time to sort by.
    mutating func sort() {
        typealias Key = (number: Int, text: String, name: String)
        func byDue(_ ascending: Bool) -> (Project) -> Key {
            { project in
                let day = project.due?.dayNumber ?? .max
                return (ascending ? day : -day, "", project.name ?? project.id)
            }
        }
        func inOrder(_ a: Key, _ b: Key) -> Bool {
            a.number != b.number ? a.number < b.number : a.text != b.text ? a.text > b.text : a.name < b.name
        }
        for section in [Section.overdue, .due] {
            projects[section] = projects[section].map { Self.ordered($0, byDue(true), inOrder) }
        }
        projects[.done] = projects[.done].map { Self.ordered($0, byDue(false), inOrder) }
        // Newest first: the creation time compares descending (`text`), then the name.
        projects[.new] = projects[.new].map {
            Self.ordered($0, { (0, $0.createdTime, $0.name ?? $0.id) }, inOrder)
        }
    }

    /// `list` in the order of its keys, each project moved once: a Project holds a dozen references, and sorting the
    /// values themselves copied them at every step (a sixth of a 30,000-project report's time).
    private static func ordered<Key>(_ list: [Project], _ key: (Project) -> Key, _ inOrder: (Key, Key) -> Bool)
        -> [Project]
    {
        let keys = list.map(key)
        return list.indices.sorted { inOrder(keys[$0], keys[$1]) }.map { list[$0] }
    }

    /// The projects of a section under each lead or category, in alphabetical order with the unnamed group last.
    static func groups(_ projects: [Project], by grouping: Grouping) -> [(name: String, projects: [Project])] {
        guard grouping != .none else { return [("", projects)] }
        var order: [String] = []
        var members: [String: [Project]] = [:]
        for project in projects {
            let key =
                (grouping == .lead ? project.lead?.displayName : project.category).flatMap { $0.isEmpty ? nil : $0 }
                ?? ""
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(project)
        }
        let unnamed = grouping == .lead ? "No lead" : "No category"
        return order.sorted { a, b in
            a.isEmpty != b.isEmpty ? !a.isEmpty : a.lowercased() < b.lowercased()
        }.map { ($0.isEmpty ? unnamed : $0, members[$0]!) }
    }

    /// Midnight of `day` where the user is, as `YYYY-MM-DDTHH:MM:SS.000Z`.
    static func start(of day: CalendarDate, in zone: Zone) -> String { ISOInstant.text(zone.instant(day)) }
}
