import Foundation
import Testing

@testable import TrackerModel
@testable import tracker
@testable import TrackerOperations

@Suite(.timeLimit(.minutes(2)))
struct TimelineChartTests {
    /// A Tuesday: the chart starts on Monday 2026-11-23.
    static let today = CalendarDate("2026-11-24")!

    static func project(_ name: String, kickoff: String? = nil, due: String) -> Project {
        Project(
            id: "rec\(name.count)", createdTime: "2026-01-01T00:00:00.000Z", name: name,
            kickoff: kickoff.flatMap(CalendarDate.init), due: CalendarDate(due))
    }

    static let projects = [
        project("Late one", due: "2026-11-02"),
        project("Brand refresh", kickoff: "2026-11-30", due: "2026-12-06"),
        project("Long haul", kickoff: "2026-10-01", due: "2027-06-01"),
        project("Later", kickoff: "2027-05-01", due: "2027-06-01"),
    ]

    func chart(width: Int, weeks: Int = 4, glyphs: TimelineChart.Glyphs = .ascii, colour: Bool = false)
        -> TimelineChart
    {
        TimelineChart(today: Self.today, weeks: weeks, width: width, glyphs: glyphs, style: Style(isEnabled: colour))
    }

    /// The rows' chart cells, after the name column.
    func cells(_ line: Substring, nameWidth: Int) -> [Character] { Array(line.dropFirst(nameWidth + 1).prefix(28)) }

    /// docs/contract.md "Tasks": done/total at the end of a row when the width allows, never past it.
    @Test(arguments: [40, 50, 80, 120])
    func tasksDoneOfAllEndARowWhereTheyFit(width: Int) {
        var projects = Self.projects
        projects[1].taskProgress = TaskProgress([
            ProjectTask(id: "recT1", createdTime: "", name: "a", isComplete: true),
            ProjectTask(id: "recT2", createdTime: "", name: "b", estimate: 2),
            ProjectTask(id: "recT3", createdTime: "", name: "c"),
        ])
        let lines = chart(width: width).render(projects).split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines)")
        let row = lines.first { $0.contains("Brand refresh") }.map(String.init) ?? ""
        let fits = width - 1 - TimelineChart.dueWidth - 4 >= TimelineChart.minimumName + TimelineChart.minimumChart
        #expect(row.hasSuffix(" 12-06 1/3") == fits, "\(row)")
        #expect(lines.filter { $0.hasSuffix("/3") }.count == (fits ? 1 : 0))
    }

    @Test func barsRunFromKickoffToDueOnADayAColumn() {
        // 50 columns: the name (15), a space, 28 days, the due date (6).
        let lines = chart(width: 50).render(Self.projects).split(separator: "\n")
        #expect(lines.count == 2 + Self.projects.count)
        // Name column: the longest name and its marker; the chart starts on Monday 11-23, today one column in.
        let nameWidth = "Brand refresh".count + 2
        #expect(lines[0].dropFirst(nameWidth + 1).hasPrefix("11-23  11-30  12-07  12-14"))
        #expect(Array(lines[1].dropFirst(nameWidth + 1).prefix(8)) == Array("+v-----+"))
        #expect(lines[2].hasPrefix("! Late one"), "overdue is marked")
        #expect(cells(lines[2], nameWidth: nameWidth).first == "<", "due before the chart: an arrow at its left")
        let brand = cells(lines[3], nameWidth: nameWidth)
        #expect(String(brand[7...13]) == "======#", "kickoff 11-30 (day 7) to due 12-06 (day 13)")
        #expect(brand[1] == "|" && brand[14] == ":", "today and the weeks stay marked")
        let long = cells(lines[4], nameWidth: nameWidth)
        #expect(String(long) == String(repeating: "=", count: 27) + ">", "a bar past the range ends in an arrow")
        #expect(
            cells(lines[5], nameWidth: nameWidth).last == ">" && !cells(lines[5], nameWidth: nameWidth).contains("="))
        #expect(lines[3].hasSuffix(" 12-06"))
    }

    @Test(arguments: [30, 40, 50, 80, 100, 200])
    func everyLineFitsTheWidthAndNamesGiveWayFirst(width: Int) {
        let names = (1...5).map { Self.project("Project with a long name number \($0)", due: "2026-12-0\($0)") }
        for weeks in [1, 8, 52] {
            let text = chart(width: width, weeks: weeks, glyphs: .unicode).render(names)
            for line in text.split(separator: "\n").dropFirst(2) {
                #expect(TextCells.width(String(line)) <= max(width, 29), "\(width) \(weeks): \(line)")
            }
        }
        // At 80 columns and 8 weeks the names are cut to 20 first, and then the chart takes what is left.
        let lines = chart(width: 80, weeks: 8).render(names).split(separator: "\n")
        #expect(lines[2].hasPrefix("  Project with a lo~ "))
        #expect(lines[1].filter { "+-v".contains($0) }.count == 80 - 20 - 1 - 6)
        // With room to spare a day gets two columns.
        #expect(chart(width: 100, weeks: 4).render(names).split(separator: "\n")[1].count == 35 + 1 + 56 + 4)
    }

    @Test func asciiIsAsciiAndColourOnlyWhereAsked() {
        let plain = chart(width: 80).render(Self.projects)
        #expect(plain.unicodeScalars.allSatisfy { $0.isASCII })
        #expect(!plain.contains("\u{1B}"))
        let coloured = chart(width: 80, glyphs: .unicode, colour: true).render(Self.projects)
        #expect(coloured.contains("\u{1B}[31m! Late one"))
        #expect(coloured.contains("━") && coloured.contains("◆") && coloured.contains("▼"))
    }

    @Test func namesFromAirtableCannotDrawOnTheTerminal() {
        let text = chart(width: 80).render([Self.project("Evil\u{1B}[2J\nname", due: "2026-12-01")])
        #expect(!text.unicodeScalars.contains { $0.value < 32 && $0 != "\n" })
        #expect(text.split(separator: "\n").count == 3)
        #expect(chart(width: 80).render([]).isEmpty)
    }

    @Test(arguments: [
        (["timeline"], 8), (["timeline", "--weeks", "12"], 12), (["timeline", "--weeks", "1"], 1),
    ])
    func weeksAreRead(arguments: [String], weeks: Int) throws {
        let invocation = try Invocation.parse(arguments, today: Self.today).get()
        #expect((invocation.command as? Timeline)?.weeks == weeks)
    }

    @Test(arguments: [["timeline", "--weeks", "0"], ["timeline", "--weeks", "53"], ["timeline", "--complete"]])
    func badWeeksAndCompleteAreUsageErrors(arguments: [String]) {
        guard case .failure(let error) = Invocation.parse(arguments, today: Self.today) else {
            Issue.record("parsed")
            return
        }
        #expect(error.exitCode == .usage)
    }

    @Test func theLocaleDecidesUnicode() {
        #expect(TimelineChart.Glyphs.localeIsUTF8(["LANG": "en_US.UTF-8"]))
        #expect(TimelineChart.Glyphs.localeIsUTF8(["LC_ALL": "C.utf8", "LANG": "C"]))
        #expect(!TimelineChart.Glyphs.localeIsUTF8(["LC_ALL": "C", "LANG": "en_US.UTF-8"]))
        #expect(!TimelineChart.Glyphs.localeIsUTF8([:]))
        #expect(TimelineChart.Glyphs.for(isTerminal: true, environment: ["LANG": "C.UTF-8"]) == .unicode)
        #expect(TimelineChart.Glyphs.for(isTerminal: false, environment: ["LANG": "C.UTF-8"]) == .ascii)
    }
}
