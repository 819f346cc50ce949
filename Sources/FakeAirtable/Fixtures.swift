#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FakeAirtable {
    /// The recorded Airtable response of the Project tracker template (16 projects), byte for byte.
    public static var recordedResponse: Data { Data(recordedText.utf8) }

    /// The same response compressed once with `gzip -9 -n` and kept: real deflate, smaller than what it inflates to.
    public static var recordedResponseGzip: Data { Data(recordedGzipBytes) }

    /// The 16 recorded projects, as record objects for `init(records:)`.
    public static var recordedProjects: [[String: Any]] {
        let object = AnyJSON.parse(recordedResponse) as? [String: Any]
        return object?["records"] as? [[String: Any]] ?? []
    }

    /// `count` made-up projects in the recorded projects' shape, some overdue, some done, some with awkward text.
    public static func generatedProjects(count: Int, today: String? = nil) -> [[String: Any]] {
        let people = recordedProjects.compactMap { $0["fields"] as? [String: Any] }.compactMap {
            $0["Project lead"] as? [String: Any]
        }
        let categories = ["Brand identity", "Industrial design", "Healthcare design", "Technology design"]
        let todayNumber = FakeDates.dayNumber(today ?? FakeDates.today()) ?? 0
        return (0..<count).map { index in
            var fields: [String: Any] = [
                "Name": "Project \(zeroPadded(index + 1, 5))",
                "Category": categories[index % categories.count],
                "Due date": FakeDates.string(dayNumber: todayNumber + (index % 61) - 30),
                "Kickoff date": FakeDates.string(dayNumber: todayNumber - 45 + (index % 7)),
                "Client": ["recClient\(zeroPadded(index % 50, 8))"],
            ]
            if !people.isEmpty { fields["Project lead"] = people[index % people.count] }
            if index % 3 == 0 { fields["Complete"] = true }
            if index % 10 == 0 { fields["Notes"] = "Line one\tand a tab\nline two with \"quotes\" and ünïcödé" }
            let id = "rec" + zeroPadded(index + 1, 14)
            return ["id": id, "createdTime": "2026-01-01T00:00:00.000Z", "fields": fields]
        }
    }

    /// `count` tasks for `generatedProjects`' projects, five a project in turn: a third done, estimates of half a day
    /// to four days, assigned to the recorded collaborators in turn.
    public static func generatedTasks(count: Int, projects: Int) -> [FakeTaskSpec] {
        let emails = recordedProjects.compactMap { $0["fields"] as? [String: Any] }.compactMap {
            ($0["Project lead"] as? [String: Any])?["email"] as? String
        }
        let names = ["Kickoff meeting", "Research", "Sketches", "Client review", "Final files"]
        return (0..<count).map { index in
            FakeTaskSpec(
                id: "recT" + zeroPadded(index + 1, 13), "\(names[index % names.count]) \(index / names.count + 1)",
                projects: ["rec" + zeroPadded((index / 5) % max(1, projects) + 1, 14)],
                estimate: Double(index % 8 + 1) / 2, completed: index % 3 == 0,
                assignee: emails.isEmpty ? nil : emails[index % emails.count])
        }
    }
}
