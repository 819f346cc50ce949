import FakeAirtable
import Foundation
import XCTest

/// "Due within N days" means one thing in every command: due today or in the N-1 days after it. On a Friday, a project
/// due the next Friday (the eighth day) was in `list --due-within 7` and not in report's "due soon" nor the board's
/// This week; now it is in none of them, and the Thursday before is in all.
final class DueWithinAgreementTests: FakeAirtableTestCase {
    private func ids(_ objects: Any?) -> Set<String> {
        Set((objects as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
    }

    /// Days since 1970 of a `YYYY-MM-DD`, and today's (tracker's today: the local date).
    private func dayNumber(_ text: String) -> Int? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.date(from: text).map { Int($0.timeIntervalSince1970 / 86_400) }
    }

    private var localToday: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    func testListReportAndStatusAgreeOnWhatIsDueWithinNDays() throws {
        // One project due each day from 30 days ago to 30 ahead; every third complete; leads in turn.
        let todayText = localToday
        let projects = FakeAirtable.generatedProjects(count: 61, today: todayText)
        var options = FakeAirtable.Options()
        // The token's user leads the open project due on the eighth day (the 38th, due today+7).
        let leadOfEighthDay = ((projects[37]["fields"] as? [String: Any])?["Project lead"] as? [String: Any])?["id"]
        options.user = (try XCTUnwrap(leadOfEighthDay as? String), nil)
        try startFake(records: projects, options: options)
        let today = try XCTUnwrap(dayNumber(todayText))
        func expected(days: Int, lead: String? = nil) -> Set<String> {
            Set(
                projects.compactMap { record -> String? in
                    let fields = record["fields"] as? [String: Any] ?? [:]
                    guard fields["Complete"] as? Bool != true, let due = fields["Due date"] as? String,
                        let day = dayNumber(due), day >= today, day <= today + days - 1
                    else { return nil }
                    if let lead, (fields["Project lead"] as? [String: Any])?["id"] as? String != lead { return nil }
                    return record["id"] as? String
                })
        }
        for days in [1, 7, 8] {
            let listed = try tracker().run(["list", "--due-within", "\(days)", "--incomplete", "--json"])
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertEqual(ids(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))), expected(days: days))

            let report = try tracker().run(["report", "--days", "\(days)", "--format", "json", "--always"])
            XCTAssertEqual(report.status, 0, report.stderr)
            let digest = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
            let sections = digest?["sections"] as? [String: Any]
            XCTAssertEqual(ids(sections?["due"]), expected(days: days), "report --days \(days)")

            let status = try tracker().run(["status", "--days", "\(days)", "--json"])
            XCTAssertEqual(status.status, 0, status.stderr)
            let mine = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            let due = (mine?["projects"] as? [[String: Any]] ?? []).filter { $0["status"] as? String != "overdue" }
            XCTAssertEqual(ids(due), expected(days: days, lead: options.user.id), "status --days \(days)")
        }
        XCTAssertEqual(expected(days: 7).count, expected(days: 8).count - 1, "the eighth day holds an open project")
    }
}
