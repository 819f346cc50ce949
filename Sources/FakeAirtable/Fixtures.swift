import Foundation

extension FakeAirtable {
    /// The recorded Airtable response of the Project tracker template (16 projects), byte for byte.
    public static var recordedResponse: Data {
        guard let url = Bundle.module.url(forResource: "design-projects", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { fatalError("design-projects.json is missing from the FakeAirtable resources") }
        return data
    }

    /// The same response compressed once with `gzip -9 -n` and kept: real deflate, smaller than what it inflates to.
    public static var recordedResponseGzip: Data {
        guard let url = Bundle.module.url(forResource: "design-projects.json", withExtension: "gz"),
            let data = try? Data(contentsOf: url)
        else { fatalError("design-projects.json.gz is missing from the FakeAirtable resources") }
        return data
    }

    /// The 16 recorded projects, as record objects for `init(records:)`.
    public static var recordedProjects: [[String: Any]] {
        let object = try? JSONSerialization.jsonObject(with: recordedResponse) as? [String: Any]
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
                "Name": "Project \(String(format: "%05d", index + 1))",
                "Category": categories[index % categories.count],
                "Due date": FakeDates.string(dayNumber: todayNumber + (index % 61) - 30),
                "Kickoff date": FakeDates.string(dayNumber: todayNumber - 45 + (index % 7)),
                "Client": ["recClient\(String(format: "%08d", index % 50))"],
            ]
            if !people.isEmpty { fields["Project lead"] = people[index % people.count] }
            if index % 3 == 0 { fields["Complete"] = true }
            if index % 10 == 0 { fields["Notes"] = "Line one\tand a tab\nline two with \"quotes\" and ünïcödé" }
            let id = "rec" + String(format: "%014d", index + 1)
            return ["id": id, "createdTime": "2026-01-01T00:00:00.000Z", "fields": fields]
        }
    }
}
