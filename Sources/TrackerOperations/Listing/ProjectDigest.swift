#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TrackerModel

/// `tracker report`'s four sections for a day and a span of days, sorted as docs/contract.md says.
package struct ProjectDigest {
    package enum Section: String, CaseIterable {
        case overdue, due, done, new

        package var title: String {
            switch self {
            case .overdue: "Overdue"
            case .due: "Due soon"
            case .done: "Done"
            case .new: "New"
            }
        }
    }

    /// How each section's projects are grouped.
    package enum Grouping: String, CaseIterable, Sendable {
        case none, lead, category
    }

    package var date: CalendarDate
    package var days: Int
    /// Where "the last N days" begin: local midnight N-1 days ago, in UTC as Airtable writes times.
    package var since: String
    /// Every project the digest holds, once, even when it is in two sections (new and overdue).
    private var all: [Project] = []
    /// Each section's projects as positions in `all`: sorting and grouping move integers, never a Project (a dozen
    /// references each, which copying retained and releasing freed: a fifth of a report of 30,000 projects).
    private var positions: [Section: [Int]] = [:]

    package init(date: CalendarDate, days: Int, timeZone: Zone) {
        self.date = date
        self.days = days
        since = Self.start(of: CalendarDate(dayNumber: date.dayNumber - days + 1), in: timeZone)
    }

    package subscript(section: Section) -> Projects { Projects(all: all, positions: positions[section] ?? []) }

    package var isEmpty: Bool { positions.values.allSatisfy(\.isEmpty) }

    /// Puts a project the digest's formula matched into every section it qualifies for.
    ///
    /// A complete project is in the listing only because it was completed or created in the span; created in it, it
    /// was completed in it too (it did not exist before), so every complete one is done.
    package mutating func add(_ project: Project) {
        var sections: [Section] = []
        if project.isComplete {
            sections.append(.done)
        } else if let due = project.due {
            if due < date {
                sections.append(.overdue)
            } else if DueWithin(days: days, from: date).contains(due) {
                sections.append(.due)
            }
        }
        // Times compared to the second as text: both are UTC in the same layout up to the seconds.
        if project.createdTime.prefix(19) >= since.prefix(19) { sections.append(.new) }
        guard !sections.isEmpty else { return }
        for section in sections { positions[section, default: []].append(all.count) }
        all.append(project)
    }

    /// Overdue oldest first, due soon soonest first, new newest first. Done by due date, latest first: Airtable
    /// gives a listing no completion time to sort by.
    package mutating func sort() {
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
            positions[section] = positions[section].map { ordered($0, byDue(true), inOrder) }
        }
        positions[.done] = positions[.done].map { ordered($0, byDue(false), inOrder) }
        // Newest first: the creation time compares descending (`text`), then the name.
        positions[.new] = positions[.new].map { ordered($0, { (0, $0.createdTime, $0.name ?? $0.id) }, inOrder) }
    }

    /// `list` in the order of its projects' keys, each key made once.
    private func ordered<Key>(_ list: [Int], _ key: (Project) -> Key, _ inOrder: (Key, Key) -> Bool) -> [Int] {
        let keys = list.map { key(all[$0]) }
        return list.indices.sorted { inOrder(keys[$0], keys[$1]) }.map { list[$0] }
    }

    /// The projects of a section, or of a group in it, in order.
    package struct Projects: RandomAccessCollection {
        fileprivate let all: [Project]
        fileprivate let positions: [Int]

        package var startIndex: Int { 0 }
        package var endIndex: Int { positions.count }
        package subscript(index: Int) -> Project { all[positions[index]] }

        /// Calls `body` with each project in order, lent where it is: `for project in` copies each one out (a
        /// dozen references retained and released), which was a tenth of a mail of 30,000 projects.
        package func forEach(_ body: (borrowing Project) throws -> Void) rethrows {
            // Through the buffer: an array's subscript still handed each project out as a copy.
            try all.withUnsafeBufferPointer { all in for position in positions { try body(all[position]) } }
        }

        /// Other projects of the same digest, as a collection of their own.
        fileprivate func subset(_ positions: [Int]) -> Projects { Projects(all: all, positions: positions) }
    }

    /// The projects of a section under each lead or category, in alphabetical order with the unnamed group last.
    package static func groups(_ projects: Projects, by grouping: Grouping) -> [(name: String, projects: Projects)] {
        guard grouping != .none else { return [("", projects)] }
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for position in projects.positions {
            let key =
                (grouping == .lead ? projects.all[position].lead?.displayName : projects.all[position].category)
                .flatMap { $0.isEmpty ? nil : $0 } ?? ""
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(position)
        }
        let unnamed = grouping == .lead ? "No lead" : "No category"
        return order.sorted { a, b in
            a.isEmpty != b.isEmpty ? !a.isEmpty : a.lowercased() < b.lowercased()
        }.map { ($0.isEmpty ? unnamed : $0, projects.subset(members[$0]!)) }
    }

    /// Midnight of `day` where the user is, as `YYYY-MM-DDTHH:MM:SS.000Z`.
    package static func start(of day: CalendarDate, in zone: Zone) -> String { ISOInstant.text(zone.instant(day)) }
}
