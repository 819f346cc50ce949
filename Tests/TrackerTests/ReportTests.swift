import Foundation
import Testing

@testable import TrackerAPI
@testable import TrackerModel
@testable import TrackerNetwork
@testable import TrackerSystem
@testable import tracker
@testable import TrackerOperations

/// `tracker report`'s sections, its four documents and the mail around them.
@Suite(.timeLimit(.minutes(2)))
struct ReportTests {
    static let today = CalendarDate("2026-11-24")!

    static func project(
        _ name: String, due: String? = nil, complete: Bool = false, created: String = "2026-01-01T09:00:00.000Z",
        lead: String? = nil, category: String? = nil
    ) -> Project {
        Project(
            id: "rec\(name.hashValue & 0xFFFF)", createdTime: created, name: name, category: category,
            isComplete: complete, due: due.flatMap(CalendarDate.init), lead: lead.map { Collaborator(name: $0) })
    }

    static func digest(_ projects: [Project], days: Int = 7) -> ProjectDigest {
        var digest = ProjectDigest(date: today, days: days, timeZone: Zone(identifier: "UTC")!)
        for project in projects { digest.add(project) }
        digest.sort()
        return digest
    }

    @Test func theLastNDaysStartAtLocalMidnightInUTC() {
        let day = CalendarDate("2026-11-18")!
        #expect(ProjectDigest.start(of: day, in: Zone(identifier: "UTC")!) == "2026-11-18T00:00:00.000Z")
        #expect(ProjectDigest.start(of: day, in: Zone(identifier: "Europe/Paris")!) == "2026-11-17T23:00:00.000Z")
        #expect(
            ProjectDigest.start(of: day, in: Zone(identifier: "America/Los_Angeles")!)
                == "2026-11-18T08:00:00.000Z")
        // The night summer time starts in Paris: midnight is still winter time.
        #expect(
            ProjectDigest.start(of: CalendarDate("2026-03-29")!, in: Zone(identifier: "Europe/Paris")!)
                == "2026-03-28T23:00:00.000Z")
        #expect(Self.digest([], days: 7).since == "2026-11-18T00:00:00.000Z")
    }

    @Test func aProjectIsInEverySectionItFitsSortedAsTheSpecSays() {
        let digest = Self.digest([
            Self.project("Late", due: "2026-11-20"),
            Self.project("Later", due: "2026-11-02"),
            Self.project("Today", due: "2026-11-24"),
            Self.project("Last day", due: "2026-11-30"),
            Self.project("Beyond", due: "2026-12-01", created: "2026-11-18T00:00:00.000Z"),
            Self.project("Done early", due: "2026-11-01", complete: true),
            Self.project("Done late", due: "2026-11-23", complete: true),
            Self.project("Brand new and late", due: "2026-11-10", created: "2026-11-24T08:00:00Z"),
            Self.project("Too old to be new", created: "2026-11-17T23:59:59.000Z"),
        ])
        #expect(digest[.overdue].map(\.name) == ["Later", "Brand new and late", "Late"])
        #expect(digest[.due].map(\.name) == ["Today", "Last day"])
        #expect(digest[.done].map(\.name) == ["Done late", "Done early"])
        #expect(digest[.new].map(\.name) == ["Brand new and late", "Beyond"])
        #expect(!digest.isEmpty)
        #expect(Self.digest([Self.project("Quiet", due: "2027-01-01")]).isEmpty)
    }

    @Test func theFormulaAsksForEachSectionAndTheCompletionFieldsChangeTime() {
        let template = FieldMap.template
        let formula = Formula.digest(today: Self.today, days: 7, since: "2026-11-18T00:00:00.000Z", fields: template)
        #expect(formula.hasPrefix("OR(AND(NOT({Complete}), {Due date}, IS_BEFORE({Due date}, '2026-11-24'))"))
        #expect(formula.contains("IS_BEFORE({Due date}, '2026-12-01')"))
        #expect(
            formula.contains(
                "AND({Complete}, NOT(IS_BEFORE(LAST_MODIFIED_TIME({Complete}), '2026-11-18T00:00:00.000Z')))"))
        #expect(formula.hasSuffix("NOT(IS_BEFORE(CREATED_TIME(), '2026-11-18T00:00:00.000Z')))"))
        let status = FieldMap(
            names: [.name: "Title"], completion: .select(field: "Status", done: "Shipped", open: "Doing"))
        let other = Formula.digest(today: Self.today, days: 7, since: "2026-11-18T00:00:00.000Z", fields: status)
        #expect(
            other
                == "OR(AND({Status} = 'Shipped', NOT(IS_BEFORE(LAST_MODIFIED_TIME({Status}), "
                + "'2026-11-18T00:00:00.000Z'))), NOT(IS_BEFORE(CREATED_TIME(), '2026-11-18T00:00:00.000Z')))")
    }

    static let hostile = "<script>alert(1)</script> *_[| ,;\\ 🚀漢字\nsecond\u{1B}[31m line"

    @Test func textFitsEightyColumnsAndShowsHostileNamesAsText() {
        let digest = Self.digest([
            Self.project(Self.hostile + String(repeating: " long", count: 20), due: "2026-11-20", lead: "Zoë Åberg"),
            Self.project("Short", due: "2026-11-25", lead: String(repeating: "Very long lead name ", count: 3)),
        ])
        let text = ReportDocument(digest: digest, tableName: "Design projects", grouping: .none).text()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "Design projects: 2026-11-24")
        #expect(lines.allSatisfy { TextCells.width(String($0)) <= 80 }, "\(text)")
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B })
        #expect(lines.contains("Overdue (1)"))
        #expect(lines.contains { $0.hasPrefix("  <script>alert(1)</script> *_[| ,;\\ 🚀漢字") })
        #expect(lines.contains { $0.hasPrefix("  Short ") && $0.contains("2026-11-25  Very long lead name…") })
    }

    @Test func groupsAreAlphabeticalWithTheUnnamedLast() {
        let digest = Self.digest([
            Self.project("A", due: "2026-11-20", lead: "zed"), Self.project("B", due: "2026-11-21"),
            Self.project("C", due: "2026-11-22", lead: "Amy"), Self.project("D", due: "2026-11-23", lead: "zed"),
        ])
        let text = ReportDocument(digest: digest, tableName: "T", grouping: .lead).text()
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }
        #expect(headings == ["  Amy (1)", "  zed (2)", "  No lead (1)"])
        // Lines end where their text does, a project without a lead at its due date; ordered by due in a group.
        #expect(!text.split(separator: "\n").contains { $0.hasSuffix(" ") }, "\(text)")
        #expect(text.contains("\n    B  2026-11-21\n"), "\(text)")
        #expect(text.contains("\n    A  2026-11-20  zed\n    D  2026-11-23  zed\n"), "\(text)")
    }

    @Test func markdownEscapesWhatWouldBecomeMarkup() {
        #expect(ReportDocument.escapedMarkdown("*_[|]<b>`x` &amp; \\") == "\\*\\_\\[\\|\\]\\<b\\>\\`x\\` \\&amp; \\\\")
        #expect(ReportDocument.escapedMarkdown("- item") == "\\- item")
        #expect(ReportDocument.escapedMarkdown("12. item") == "12\\. item")
        #expect(ReportDocument.escapedMarkdown("Plain name, 2026-11-24.") == "Plain name, 2026-11-24.")
        let markdown = ReportDocument(
            digest: Self.digest([Self.project(Self.hostile, due: "2026-11-20")]), tableName: "T", grouping: .none
        ).markdown()
        #expect(markdown.contains("- \\<script\\>alert(1)\\</script\\> \\*\\_\\[\\| ,;\\\\ 🚀漢字 second^\\[\\[31m line"))
    }

    @Test func htmlIsOneDocumentWithEveryTextEscaped() {
        let html = ReportDocument(
            digest: Self.digest([Self.project(Self.hostile, due: "2026-11-20", lead: "\"Quote\" & 'Co'")]),
            tableName: "<Projects>", grouping: .category
        ).html()
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.hasSuffix("</body>\n</html>\n"))
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;Quote&quot; &amp; &#39;Co&#39;"))
        #expect(html.contains("<title>&lt;Projects&gt;: 2026-11-24</title>"))
        #expect(!html.contains("http"), "no external resources")
    }

    @Test func jsonHasEveryKeyAndTheStableProjects() throws {
        let digest = Self.digest([Self.project("Late", due: "2026-11-20")])
        let text = ReportDocument(digest: digest, tableName: "T", grouping: .none).json(today: Self.today)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["date"] as? String == "2026-11-24")
        #expect(object["days"] as? Int == 7)
        let sections = try #require(object["sections"] as? [String: [[String: Any]]])
        #expect(Set(sections.keys) == ["overdue", "due", "done", "new"])
        #expect(sections["overdue"]?.first?["status"] as? String == "overdue")
        #expect(sections["due"]?.isEmpty == true)
    }
}
